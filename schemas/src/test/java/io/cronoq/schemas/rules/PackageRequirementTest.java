package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.schemas.rules.PackageRequirement.Operator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PackageRequirementTest {

    private static final String FIELD = "resources.packages[0]";

    private static PackageRequirement req(String text) {
        return PackageRequirement.parse(FIELD, text);
    }

    @Test
    void aBareNameMatchesAnyVersionEvenOneThatIsNotAVersion() {
        PackageRequirement torch = req("torch");
        assertThat(torch.constraints()).isEmpty();
        assertThat(torch.matches("2.1.0")).isTrue();
        assertThat(torch.matches("2.0-ubuntu1")).isTrue();
    }

    @ParameterizedTest(name = "{0} against {1} -> {2}")
    @CsvSource({
            "torch==2.1.0, 2.1.0, true",
            "torch==2.1.0, 2.1, true",
            "torch==2.1.0, 2.1.1, false",
            "torch==2.1.0, 2.1.0+cu118, true",
            "torch==2.1.0+cu118, 2.1.0+cu118, true",
            "torch==2.1.0+cu118, 2.1.0+cu121, false",
            "torch==2.1.*, 2.1.5, true",
            "torch==2.1.*, 2.1, true",
            "torch==2.1.*, 2.10, false",
            "torch!=2.0, 2.0, false",
            "torch!=2.0, 2.0.1, true",
            "torch!=2.*, 2.5, false",
            "torch>=2.0, 2.0, true",
            "torch>=2.0, 2.0rc1, false",
            "torch>=2.0, 10.0, true",
            "torch<=2.0, 2.0, true",
            "torch<=2.0, 2.0.post1, false",
            "torch>2.0, 2.0.1, true",
            "torch>2.0, 2.0, false",
            "torch>2.0, 2.0.post1, false",
            "torch>2.0.post1, 2.0.post2, true",
            "torch<3, 2.99, true",
            "torch<3, 3.0, false",
            "torch<3, 3.0rc1, false",
            "torch<3.0rc2, 3.0rc1, true",
            "torch~=2.2, 2.2, true",
            "torch~=2.2, 2.9.1, true",
            "torch~=2.2, 3.0, false",
            "torch~=2.2, 2.1, false",
            "torch~=1.4.5, 1.4.9, true",
            "torch~=1.4.5, 1.5.0, false",
            "'torch>=2.0,<3', 2.3.1, true",
            "'torch>=2.0,<3', 3.0.0, false",
            "'torch>=2.0,<3', 1.13.1, false",
            "'torch >= 2.0 , < 3', 2.0, true",
            "'numpy>=1.26,!=1.26.1,<2', 1.26.1, false",
            "'numpy>=1.26,!=1.26.1,<2', 1.26.2, true",
            "torch>=2.0, not-a-version, false"
    })
    void everyOperatorAndRangeMatchesAsPipWould(String requirement, String installed, boolean matches) {
        assertThat(req(requirement).matches(installed)).isEqualTo(matches);
    }

    @Test
    void parsesNameAndConstraints() {
        PackageRequirement r = req("torch>=2.0,<3");
        assertThat(r.name()).isEqualTo("torch");
        assertThat(r.constraints()).extracting(PackageRequirement.Constraint::operator)
                .containsExactly(Operator.AT_LEAST, Operator.LESS);
        assertThat(r).hasToString("torch>=2.0,<3");
        assertThat(req(" torch >= 2.0 , <3 ")).isEqualTo(r);
    }

    @Test
    void namesCompareCaseInsensitivelyWithSeparatorsAlike() {
        PackageRequirement r = req("Scikit_Learn>=1.3");
        assertThat(r.normalizedName()).isEqualTo("scikit-learn");
        assertThat(r.isFor("scikit-learn")).isTrue();
        assertThat(r.isFor("SCIKIT.LEARN")).isTrue();
        assertThat(r.isFor("scikit--learn")).isTrue();
        assertThat(r.isFor("scikitlearn")).isFalse();
        assertThat(r.satisfiedBy(Map.of("numpy", "1.26", "scikit.learn", "1.4.0"))).isTrue();
        assertThat(r.satisfiedBy(Map.of("scikit-learn", "1.2.0"))).isFalse();
        assertThat(r.satisfiedBy(Map.of())).isFalse();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
            "''| is empty",
            "'>=2.0'| does not start with a package name",
            "'-torch'| does not start with a package name",
            "torch[cuda]>=2| extras",
            "'torch>=2; python_version>\"3.8\"'| environment markers",
            "torch=2.0| the operator '=' is not one cronoq reads",
            "torch=>2.0| the operator '=>' is not one cronoq reads",
            "torch>>2.0| the operator '>>' is not one cronoq reads",
            "torch====2.0| the operator '====' is not one cronoq reads",
            "'torch (>=2.0'| the '(' after the name is not closed",
            "'torch ()'| the parentheses hold no constraint",
            "'torch>=2.0 (<3)'| parentheses go around all the constraints",
            "'torch (>=2.0) (<3)'| parentheses go around all the constraints",
            "'torch @ https://example.org/torch.whl'| a direct reference",
            "'torch===1.0 beta'| more than one word",
            "torch===| '===' is not followed by a version",
            "torch 2.0| '2.0' does not start with an operator",
            "torch>=| '>=' is not followed by a version",
            "torch>=2.x| '2.x' is not a version",
            "'torch>=2.0,'| empty constraint",
            "'torch>=2.0,,<3'| empty constraint",
            "torch>=2.*| a wildcard (.*) is allowed only after == or !=",
            "torch==2.0rc1.*| a wildcard (.*) follows release numbers only",
            "torch>=2.0+cu118| a local label (+...) is allowed only after == or !=",
            "torch~=2| ~= needs at least two release numbers"
    })
    void anUnparseableRequirementIsRefusedWithTheReason(String text, String reason) {
        assertThatThrownBy(() -> req(text)).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo(FIELD);
            assertThat(e.getMessage()).contains(reason).contains(PackageRequirement.FORMS);
        });
        assertThat(PackageRequirement.check(FIELD, text)).hasValueSatisfying(v -> assertThat(v.field()).isEqualTo(FIELD));
    }

    @Test
    void checkPassesARequirement() {
        assertThat(PackageRequirement.check(FIELD, "pandas~=2.1")).isEmpty();
    }

    @ParameterizedTest(name = "{0} against {1} -> {2}")
    @CsvSource({
            // Exclusive comparisons exclude only the bound's own post-releases (>) or pre-releases (<).
            "pkg>1.0.dev1, 1.0.post0, true",
            "pkg<1.0.post1, 1.0.dev0, true",
            "pkg>1.0, 1.0.post1, false",
            "pkg<1.0, 1.0a1, false",
            "pkg>1.0a1, 1.0.post0, true",
            "pkg>1.0a1, 1.0a1.post0, false",
            "pkg>1.0, 1.0+local, false",
            "pkg<1.0.post1, 1.0.post1.dev0, false",
            // Installed pre-releases satisfy a range that holds them.
            "pkg>=2.0, 2.1rc1, true",
            "'pkg>=1.0,<3', 2.0.dev1, true"
    })
    void exclusiveComparisonsFollowPep440(String requirement, String installed, boolean matches) {
        assertThat(req(requirement).matches(installed)).isEqualTo(matches);
        assertThat(req(requirement).matches(PackageVersion.parse("v", installed))).isEqualTo(matches);
    }

    @ParameterizedTest
    @ValueSource(strings = {"torch (>=2.2,<3)", "torch(>=2.2,<3)", "torch ( >=2.2 , <3 )", "\ttorch\t(\t>=\t2.2\t,\t<\t3\t)\t",
            "  torch  >=  2.2  ,  <  3  ", "torch>=2.2,<3"})
    void theParenthesisedFormAndSpacesOrTabsAnywherePep508AllowsThem(String text) {
        PackageRequirement r = req(text);
        assertThat(r.name()).isEqualTo("torch");
        assertThat(r).hasToString("torch>=2.2,<3").isEqualTo(req("torch>=2.2,<3"));
        assertThat(r.matches("2.5")).isTrue();
        assertThat(r.matches("3.0")).isFalse();
        assertThat(req("name(==1.0)").matches("1.0")).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"torch\n", "torch>=2.0\r\n", "torch\n>=2.0", "\rtorch"})
    void aRequirementWithALineBreakIsRefused(String text) {
        assertThatThrownBy(() -> req(text)).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo(FIELD);
            assertThat(e.getMessage()).contains("line break").contains("remove it");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"torch\u00A0>=2.0", "torch>=\u202F2.0", "torch\f", "\u2029torch", "torch\u000B(>=2)"})
    void whitespaceOtherThanSpacesAndTabsIsRefused(String text) {
        assertThatThrownBy(() -> req(text)).hasMessageContaining("only spaces and tabs may separate its parts");
    }

    @Test
    void arbitraryEqualityComparesTheVersionTextCaseAside() {
        PackageRequirement r = req("foo===1.0-Custom");
        assertThat(r.constraints()).singleElement().satisfies(c -> {
            assertThat(c.operator()).isEqualTo(Operator.ARBITRARY);
            assertThat(c.arbitrary()).isEqualTo("1.0-Custom");
        });
        assertThat(r).hasToString("foo===1.0-Custom");
        assertThat(PackageRequirement.parse(FIELD, r.toString())).isEqualTo(r);
        assertThat(r.matches("1.0-custom")).isTrue();
        assertThat(r.matches("1.0.post1")).isFalse();
        assertThat(req("foo===lolwat").matches("LOLWAT")).isTrue();
        assertThat(req("foo===lolwat").constraints().get(0).version()).isNull();
        assertThat(req("foo===1.0").matches("1.0.0")).isFalse();
        assertThat(req("foo===1.0").matches(PackageVersion.parse("v", "1.0"))).isTrue();
        assertThat(req("foo===1.0").satisfiedBy(Map.of("Foo", "1.0"))).isTrue();
    }

    // Ported from packaging's tests (see src/test/resources/pep440/).

    static Stream<Arguments> packagingContains() {
        return Pep440Tables.read("contains.tsv").stream().map(r -> Arguments.of((Object) r));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("packagingContains")
    void packagingsSpecifierTablesAsAnInstalledVersion(String[] row) {
        String spec = row[0];
        String version = row[1];
        boolean expected = Boolean.parseBoolean(row[2]);
        PackageRequirement r = req("pkg" + spec);
        assertThat(r.matches(version)).as("%s in %s (%s)", version, spec, row[3]).isEqualTo(expected);
        if (!spec.contains("===")) {
            PackageVersion.tryParse(version).ifPresent(v -> assertThat(r.matches(v)).isEqualTo(expected));
        }
        // The canonical spelling, as the scheduler keys it, means the same.
        assertThat(req(r.toString()).matches(version)).isEqualTo(expected);
    }

    @Test
    void packagingsContainsTablesAreAllThere() {
        assertThat(Pep440Tables.read("contains.tsv")).hasSize(442);
    }

    static Stream<String> packagingValidSpecifiers() {
        Stream<String> listed = Pep440Tables.read("specifiers-valid.txt").stream().map(r -> r[0]);
        Stream<String> normalized = Pep440Tables.read("specifier-versions.txt").stream().map(r -> r[0])
                .filter(v -> v.chars().allMatch(c -> c == ' ' || c == '\t' || !PackageVersion.isPythonWhitespace((char) c)))
                .flatMap(v -> (v.contains("+") ? List.of("==", "!=") : List.of("~=", "==", "!=", "<=", ">=", "<", ">"))
                        .stream().map(op -> op + v));
        return Stream.concat(listed, normalized);
    }

    @ParameterizedTest
    @MethodSource("packagingValidSpecifiers")
    void packagingsValidSpecifiersAreRequirements(String spec) {
        assertThat(PackageRequirement.check(FIELD, "pkg" + spec)).isEmpty();
        assertThat(PackageRequirement.check(FIELD, "pkg (" + spec + ")")).isEmpty();
    }

    @Test
    void aSpecifierVersionWithOtherWhitespaceIsRefusedAsPep508Requires() {
        // packaging's Specifier strips it; a PEP 508 requirement (packaging's Requirement) refuses it.
        assertThat(Pep440Tables.read("specifier-versions.txt")).extracting(r -> r[0])
                .contains("  \r \f \u000B v1.0\t\n");
        assertThatThrownBy(() -> req("pkg==  \r \f \u000B v1.0\t\n")).hasMessageContaining("line break");
    }

    static Stream<String> packagingInvalidSpecifiers() {
        return Pep440Tables.read("specifiers-invalid.txt").stream().map(r -> r[0]);
    }

    @ParameterizedTest
    @MethodSource("packagingInvalidSpecifiers")
    void packagingsInvalidSpecifiersAreRefused(String spec) {
        // After a space, so that an operator-less "2.0" is not read as part of the name ("pkg2.0").
        assertThat(PackageRequirement.check(FIELD, "pkg " + spec)).isPresent();
        assertThat(PackageRequirement.check(FIELD, "pkg (" + spec + ")")).isPresent();
    }

    static Stream<Arguments> packagingOperatorsAndVersions() {
        return Pep440Tables.read("specifier-operator-version.tsv").stream().map(r -> Arguments.of((Object) r));
    }

    @ParameterizedTest
    @MethodSource("packagingOperatorsAndVersions")
    void packagingsOperatorAndVersionOfASpecifier(String[] row) {
        PackageRequirement.Constraint c = req("pkg" + row[0]).constraints().get(0);
        assertThat(c.operator().symbol()).isEqualTo(row[1]);
        assertThat(c.toString()).isEqualTo(row[1] + row[2]);
    }
}
