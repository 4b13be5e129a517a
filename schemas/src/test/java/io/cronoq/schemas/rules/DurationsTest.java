package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Durations as typed on a command line and as shown in failure messages. */
class DurationsTest {

    @Test
    void readsUnitsAndCombinations() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Durations.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(Durations.parse("PT2M")).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void refusesWhatIsNotADuration() {
        assertThatThrownBy(() -> Durations.parse("5")).hasMessageContaining("'5' is not a duration");
        assertThatThrownBy(() -> Durations.parse("5 s")).hasMessageContaining("is not a duration");
    }

    @Test
    void writesCompactly() {
        assertThat(Durations.words(Duration.ofSeconds(5))).isEqualTo("5s");
        assertThat(Durations.words(Duration.ofMillis(300))).isEqualTo("300ms");
        assertThat(Durations.words(Duration.ofMinutes(90))).isEqualTo("1h30m");
    }

    @Test
    void writesTheTwoLargestUnitsThatMatter() {
        assertThat(Durations.words(250)).isEqualTo("250ms");
        assertThat(Durations.words(1_500)).isEqualTo("1.5s");
        assertThat(Durations.words(12_300)).isEqualTo("12s");
        assertThat(Durations.words(125_000)).isEqualTo("2m5s");
        assertThat(Durations.words(3_600_000 + 120_000 + 5_000)).isEqualTo("1h2m");
        assertThat(Durations.words(3 * 86_400_000L + 4 * 3_600_000L + 60_000)).isEqualTo("3d4h");
        assertThat(Durations.words(-1_500)).isEqualTo("-1.5s");
    }
}
