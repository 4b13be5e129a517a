package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JitQuietTest {

    @Test
    void aWaitWatchesAtLeastOneWindowAndSaysWhatItFound() {
        JitQuiet.Result result = JitQuiet.await(Duration.ZERO);

        assertThat(result.waitedSeconds()).isGreaterThanOrEqualTo(JitQuiet.WINDOW.toMillis() / 1000.0 - 0.05);
        assertThat(result.compileMsPerSecond()).isNotNegative();
        assertThat(result.describe()).startsWith(result.quiet() ? "the JIT went quiet" : "the JIT was still compiling");
    }

    @Test
    void aWaitThatRanOutSaysTheMeasurementGoesOnAnyway() {
        assertThat(new JitQuiet.Result(120.4, false, 35.0).describe())
                .isEqualTo("the JIT was still compiling after 120 s (35 ms/s); measuring anyway");
        assertThat(new JitQuiet.Result(6.2, true, 10.0).describe()).isEqualTo("the JIT went quiet after 6 s");
    }
}
