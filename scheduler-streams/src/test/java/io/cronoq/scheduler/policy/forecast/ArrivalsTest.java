package io.cronoq.scheduler.policy.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What arrivals read as: a steady rate from ordinary minutes, bursts apart, nothing from before the pool began. */
class ArrivalsTest {

    private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private static final long MINUTE = 60_000;

    private final Arrivals arrivals = new Arrivals();

    @Test
    void aBurstIsKeptApartFromTheSteadyRate() {
        for (int m = 0; m < 60; m++) {
            submit(m, m == 30 ? 203 : 3);
        }

        RunTimes.Stream stream = arrivals.stream(T0 + 60 * MINUTE, T0);

        // 59 ordinary minutes of 3 (the first is not complete since the pool began: it is left out).
        assertThat(stream.count()).isEqualTo(58 * 3);
        assertThat(stream.spanMs()).isEqualTo(58 * MINUTE);
        assertThat(stream.bursts()).containsExactly(200L);
        assertThat(stream.burstSpanMs()).as("a rare event's rate is taken over the whole hour").isEqualTo(60 * MINUTE);
    }

    @Test
    void minutesBeforeThePoolBeganAndTheCurrentOneAreLeftOut() {
        submit(10, 6);
        submit(11, 6);
        submit(12, 2); // the current minute, not over

        RunTimes.Stream stream = arrivals.stream(T0 + 12 * MINUTE + 30_000, T0 + 9 * MINUTE + 1);

        assertThat(stream.count()).isEqualTo(12);
        assertThat(stream.spanMs()).isEqualTo(2 * MINUTE);
    }

    @Test
    void nothingArrivedInTheLastHourIsNoStream() {
        submit(0, 5);

        assertThat(arrivals.stream(T0 + 120 * MINUTE, T0)).isNull();
    }

    private void submit(int minute, int count) {
        for (int i = 0; i < count; i++) {
            TaskSubmitted t = TaskSubmitted.newBuilder().setTaskId("t" + minute + "-" + i).setPool("p")
                    .setLabels(Map.of()).setSubmittedAt(Instant.ofEpochMilli(T0)).build();
            arrivals.submitted(t, T0 + minute * MINUTE + i);
        }
    }
}
