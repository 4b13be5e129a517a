package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GcPausesTest {

    private static final long START_NANOS = 7_000_000_000L;
    private static final long START_UPTIME_MS = 5_000;

    @Test
    void countsOnlyThePausesThatEndedInTheWindow() {
        GcPauses gc = GcPauses.unattached(START_NANOS, START_UPTIME_MS);
        gc.record(5_500, 30);  // ends 0.5 s after the start
        gc.record(6_200, 10);  // 1.2 s
        gc.record(9_000, 50);  // 4.0 s

        assertThat(gc.over(START_NANOS, 2)).isEqualTo(new GcPauses.Summary(2, 40.0, 30.0, 1));
        assertThat(gc.over(START_NANOS + TimeUnit.MILLISECONDS.toNanos(1_500), 3))
                .isEqualTo(new GcPauses.Summary(1, 50.0, 50.0, 1));
        assertThat(gc.over(START_NANOS + TimeUnit.SECONDS.toNanos(5), 10))
                .isEqualTo(new GcPauses.Summary(0, 0.0, 0.0, 0));
    }

    @Test
    void aPauseAtTheGoalIsNotOverIt() {
        GcPauses gc = GcPauses.unattached(START_NANOS, START_UPTIME_MS);
        gc.record(5_100, (long) GcPauses.GOAL_MS);
        gc.record(5_200, (long) GcPauses.GOAL_MS + 1);

        assertThat(gc.over(START_NANOS, 1).overGoal()).isEqualTo(1);
    }

    @Test
    void wholeConcurrentCyclesAreNoPauses() {
        assertThat(GcPauses.pauses("G1 Young Generation")).isTrue();
        assertThat(GcPauses.pauses("G1 Old Generation")).isTrue();
        // Java 20 and later: its notifications are "end of concurrent GC pause", the remark and cleanup pauses.
        assertThat(GcPauses.pauses("G1 Concurrent GC")).isTrue();
        assertThat(GcPauses.pauses("ZGC Minor Pauses")).isTrue();
        assertThat(GcPauses.pauses("Shenandoah Pauses")).isTrue();
        assertThat(GcPauses.pauses("ZGC Minor Cycles")).isFalse();
        assertThat(GcPauses.pauses("Shenandoah Cycles")).isFalse();
    }

    @Test
    void recordsThisJvmsCollections() {
        long from = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);
        try (GcPauses gc = GcPauses.start()) {
            System.gc();
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(gc.over(from, 60).count()).isPositive());
        }
    }
}
