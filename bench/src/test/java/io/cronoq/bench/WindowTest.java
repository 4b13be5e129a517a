package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Throughput windows: the rate from first to last, and of any stretch of the run. */
class WindowTest {

    private static final long MS = 1_000_000;

    @Test
    void rateIsEventsBetweenTheFirstAndTheLastOverTheTimeBetweenThem() {
        Window w = new Window();
        for (int i = 0; i <= 100; i++) {
            w.add(i * 10 * MS); // one every 10 ms
        }
        assertThat(w.count()).isEqualTo(101);
        assertThat(w.seconds()).isCloseTo(1.0, within(1e-9));
        assertThat(w.perSecond()).isCloseTo(100.0, within(1e-9));
    }

    @Test
    void aStretchOfTheRunHasItsOwnRateSoASlowdownShows() {
        Window w = new Window();
        long t = 0;
        for (int i = 0; i < 10_000; i++) {
            w.add(t);
            t += i < 5_000 ? MS : 4 * MS; // 1,000/s, then 250/s
        }
        assertThat(w.perSecondBetween(0, 1_000)).isCloseTo(1_000.0, within(1e-6));
        assertThat(w.perSecondBetween(9_000, 9_999)).isCloseTo(250.0, within(1e-6));
        assertThat(w.perSecondBetween(9_000, 20_000)).as("beyond the last event: up to the last").isCloseTo(250.0, within(1e-6));
        assertThat(new Window().perSecondBetween(0, 10)).isZero();
    }
}
