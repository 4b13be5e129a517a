package io.cronoq.agent.process;

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
        assertThat(Durations.format(Duration.ofSeconds(5))).isEqualTo("5s");
        assertThat(Durations.format(Duration.ofMillis(300))).isEqualTo("300ms");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("1h30m");
    }
}
