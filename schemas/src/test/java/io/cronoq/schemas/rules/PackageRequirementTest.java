package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.schemas.rules.PackageRequirement.Operator;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
            "torch===2.0| arbitrary equality",
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
}
