package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PackageVersionTest {

    private static PackageVersion v(String text) {
        return PackageVersion.parse("version", text);
    }

    @Test
    void releasePartsCompareNumericallyNotAsText() {
        assertThat(v("2.10")).isGreaterThan(v("2.9"));
        assertThat(v("10.0")).isGreaterThan(v("9.99.99"));
        assertThat(v("1.0.1")).isGreaterThan(v("1.0"));
    }

    @Test
    void trailingZerosDoNotChangeAVersion() {
        assertThat(v("2.0")).isEqualByComparingTo(v("2.0.0")).isEqualTo(v("2"));
        assertThat(v("2.0").hashCode()).isEqualTo(v("2.0.0").hashCode());
    }

    @Test
    void preReleasesComeBeforeTheReleaseAndPostReleasesAfter() {
        List<String> ordered = List.of("1!0.1", "2.0.dev1", "2.0a1", "2.0a2", "2.0b1", "2.0rc1", "2.0rc2", "2.0",
                "2.0+cu118", "2.0.post1", "2.0.post2.dev1", "2.0.post2", "2.1");
        List<PackageVersion> shuffled = new ArrayList<>(ordered.stream().map(PackageVersionTest::v).toList());
        Collections.reverse(shuffled);
        Collections.sort(shuffled);
        assertThat(shuffled.stream().map(PackageVersion::toString))
                .containsExactly("2.0.dev1", "2.0a1", "2.0a2", "2.0b1", "2.0rc1", "2.0rc2", "2.0", "2.0+cu118",
                        "2.0.post1", "2.0.post2.dev1", "2.0.post2", "2.1", "1!0.1");
    }

    @Test
    void spellingsOfTheSameVersionAreEqual() {
        assertThat(v("2.0RC1")).isEqualTo(v("2.0rc1")).isEqualTo(v("2.0-rc.1")).isEqualTo(v("2.0c1"));
        assertThat(v("1.0alpha2")).isEqualTo(v("1.0a2"));
        assertThat(v("1.0-1")).isEqualTo(v("1.0.post1"));
        assertThat(v("v1.2")).isEqualTo(v("1.2"));
    }

    @Test
    void describesItself() {
        assertThat(v("2.0rc1").isPreRelease()).isTrue();
        assertThat(v("2.0.dev1").isPreRelease()).isTrue();
        assertThat(v("2.0.post1").isPostRelease()).isTrue();
        assertThat(v("2.1.0+cu118").hasLocal()).isTrue();
        assertThat(v("2.1.0+cu118").withoutLocal()).isEqualTo(v("2.1.0"));
        assertThat(v("2.1.0").releaseLength()).isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "latest", "2.x", "1..2", "2.0-ubuntu1", "2.0+", "1.0 beta"})
    void textThatIsNotAVersionIsRefusedWithTheForms(String text) {
        assertThat(PackageVersion.tryParse(text)).isEmpty();
        assertThatThrownBy(() -> v(text)).isInstanceOf(InvalidInputException.class)
                .hasMessageContaining("is not a version").hasMessageContaining(PackageVersion.FORMS);
    }

    // Ported from packaging's tests (see src/test/resources/pep440/).

    @Test
    void packagingsVersionsSortInTheirOrder() {
        List<PackageVersion> ordered = Pep440Tables.read("versions-ordered.txt").stream().map(r -> v(r[0])).toList();
        assertThat(ordered).hasSize(92);
        for (int i = 0; i < ordered.size(); i++) {
            for (int j = 0; j < ordered.size(); j++) {
                assertThat(Integer.signum(ordered.get(i).compareTo(ordered.get(j))))
                        .as("%s vs %s", ordered.get(i), ordered.get(j)).isEqualTo(Integer.compare(i, j));
                assertThat(ordered.get(i).equals(ordered.get(j))).isEqualTo(i == j);
            }
        }
        List<PackageVersion> shuffled = new ArrayList<>(ordered);
        Collections.shuffle(shuffled, new java.util.Random(440));
        Collections.sort(shuffled);
        assertThat(shuffled).containsExactlyElementsOf(ordered);
    }

    static Stream<String> invalidVersions() {
        return Pep440Tables.read("versions-invalid.txt").stream().map(r -> r[0]);
    }

    @ParameterizedTest
    @MethodSource("invalidVersions")
    void packagingsInvalidVersionsAreRefused(String text) {
        assertThat(PackageVersion.tryParse(text)).isEmpty();
    }

    static Stream<Arguments> normalizedVersions() {
        return Stream.concat(Pep440Tables.read("versions-normalized.tsv").stream(),
                Pep440Tables.read("versions-str.tsv").stream()).map(r -> Arguments.of((Object) r));
    }

    @ParameterizedTest
    @MethodSource("normalizedVersions")
    void everySpellingIsTheVersionItNormalisesTo(String[] row) {
        PackageVersion written = v(row[0]);
        PackageVersion normal = v(row[1]);
        assertThat(written).isEqualByComparingTo(normal).isEqualTo(normal);
        assertThat(written.hashCode()).isEqualTo(normal.hashCode());
    }

    static Stream<Arguments> publicVersions() {
        return Pep440Tables.read("versions-public.tsv").stream().map(r -> Arguments.of((Object) r));
    }

    @ParameterizedTest
    @MethodSource("publicVersions")
    void withoutLocalIsThePublicVersion(String[] row) {
        assertThat(v(row[0]).withoutLocal()).isEqualTo(v(row[1]));
        assertThat(v(row[0]).withoutLocal().hasLocal()).isFalse();
    }

    static Stream<Arguments> preAndPostReleases() {
        return Stream.concat(
                Pep440Tables.read("versions-is-prerelease.tsv").stream().map(r -> new String[] {r[0], "pre", r[1]}),
                Pep440Tables.read("versions-is-postrelease.tsv").stream().map(r -> new String[] {r[0], "post", r[1]}))
                .map(r -> Arguments.of((Object) r));
    }

    @ParameterizedTest
    @MethodSource("preAndPostReleases")
    void knowsItsPreAndPostReleases(String[] row) {
        PackageVersion version = v(row[0]);
        boolean actual = row[1].equals("pre") ? version.isPreRelease() : version.isPostRelease();
        assertThat(actual).isEqualTo(Boolean.parseBoolean(row[2]));
    }

    @Test
    void whitespaceAroundIsWhatPythonsStripRemoves() {
        String python = "\t\n\u000B\f\r\u001C\u001D\u001E\u001F \u0085\u00A0\u1680\u2000\u2001\u2002\u2003"
                + "\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000";
        for (char c : python.toCharArray()) {
            assertThat(PackageVersion.tryParse(c + "1.0" + c)).as("U+%04X", (int) c).hasValue(v("1.0"));
            assertThat(v(c + "1.0" + c)).hasToString("1.0");
        }
        // Not whitespace to Python (some are to Java, or look like it).
        for (char c : "\u200B\u180E\u00AD\uFEFF\u0000".toCharArray()) {
            assertThat(PackageVersion.tryParse(c + "1.0")).as("U+%04X", (int) c).isEmpty();
        }
        assertThat(v("\u202F1.0\t\u2029\n ")).isEqualTo(v("1.0"));
    }

    @Test
    void lettersCompareCaseInsensitivelyInAsciiOnly() {
        assertThat(v("1.0+AbC")).isEqualTo(v("1.0+abc"));
        assertThat(v("V1.0RC1")).isEqualTo(v("1.0rc1"));
        // Kelvin sign and dotted capital I lower-case to ASCII letters in Java, but are no letters here.
        assertThat(PackageVersion.tryParse("1.0+\u212A")).isEmpty();
        assertThat(PackageVersion.tryParse("1.0+\u0130")).isEmpty();
        assertThat(PackageVersion.tryParse("1.0\u212Aa1")).isEmpty();
    }
}
