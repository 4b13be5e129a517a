package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LatencyTest {

    private final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(100));
    private final Latency latency = new Latency(now::get);

    private void at(double second, long count, double millis) {
        now.set(TimeUnit.SECONDS.toNanos(100) + (long) (second * 1e9));
        for (long i = 0; i < count; i++) {
            latency.recordNanos((long) (millis * 1e6));
        }
    }

    @Test
    void eachTenSecondsHasItsOwnP99FromTheFirstSamplesSecond() {
        at(3.5, 500, 10);
        at(12.9, 1_000, 10);
        at(13.0, 100, 300);
        at(25, 100, 20);

        Latency.Summary summary = latency.summary();

        // Windows start at the first sample's second (3): 3-12, 13-22, 23-.
        // Two significant digits: a window's p99 is within 1% of the latency recorded.
        assertThat(summary.p99ByWindow()).hasSize(3);
        assertThat(summary.p99ByWindow().get(0)).isCloseTo(10.0, withinPercentage(1));
        assertThat(summary.p99ByWindow().get(1)).isCloseTo(300.0, withinPercentage(1));
        assertThat(summary.p99ByWindow().get(2)).isCloseTo(20.0, withinPercentage(1));
        assertThat(summary.count()).isEqualTo(1_700);
        assertThat(summary.slowSeconds()).isEqualTo(1);
        assertThat(summary.slowAt()).containsOnlyKeys(10L);
        assertThat(summary.worstAtSecond()).isEqualTo(10);
    }

    @Test
    void aRunWithinOneWindowHasOneP99() {
        at(0, 99, 1);
        at(9.9, 1, 40);

        assertThat(latency.summary().p99ByWindow()).hasSize(1);
    }
}
