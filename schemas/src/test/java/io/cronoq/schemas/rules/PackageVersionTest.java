package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
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
}
