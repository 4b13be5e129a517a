package io.cronoq.scheduler.policy.forecast;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskSubmitted;
import java.time.Instant;
import java.util.List;
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

    @Test
    void burstsEvenlySpacedKeepACadenceAndTheNextIsDueOnIt() {
        for (int m = 0; m < 60; m++) {
            submit(m, m % 15 == 2 ? 102 : 2); // minutes 2, 17, 32 and 47
        }

        RunTimes.Stream stream = arrivals.stream(T0 + 60 * MINUTE, T0);

        assertThat(stream.bursts()).containsExactly(100L, 100L, 100L, 100L);
        // Each burst comes at the mean time of its minute's submissions: 50.5 ms into it (offsets 0..101).
        assertThat(stream.cadence()).isEqualTo(new RunTimes.Cadence(T0 + 62 * MINUTE + 51, 15 * MINUTE, 0));
    }

    @Test
    void aBurstUnderWayInTheCurrentMinuteHasComeAndTheNextIsThePeriodAfter() {
        for (int m = 0; m <= 62; m++) {
            submit(m, m % 15 == 2 ? 102 : 2); // minute 62, not over yet, already holds its burst
        }

        RunTimes.Stream stream = arrivals.stream(T0 + 62 * MINUTE + 30_000, T0);

        // Only whole minutes give sizes; minute 2's count gave its place in the hour's ring to minute 62.
        assertThat(stream.bursts()).containsExactly(100L, 100L, 100L);
        assertThat(stream.cadence().nextAt()).isEqualTo(T0 + 77 * MINUTE + 51);
    }

    @Test
    void unevenBurstsKeepNoCadence() {
        for (int m = 0; m < 60; m++) {
            submit(m, m == 3 || m == 10 || m == 40 ? 102 : 2);
        }

        RunTimes.Stream stream = arrivals.stream(T0 + 60 * MINUTE, T0);

        assertThat(stream.bursts()).hasSize(3);
        assertThat(stream.cadence()).as("gaps of 7 and 30 minutes").isNull();
    }

    @Test
    void aCadenceWhoseBurstDidNotComeIsBroken() {
        for (int m = 0; m < 60; m++) {
            submit(m, m == 5 || m == 15 || m == 25 ? 102 : 2); // the next was due at minute 35
        }

        assertThat(arrivals.stream(T0 + 36 * MINUTE, T0).cadence()).as("a minute late is within its tolerance")
                .isNotNull();
        assertThat(arrivals.stream(T0 + 60 * MINUTE, T0).cadence()).as("25 minutes late").isNull();
        assertThat(Arrivals.cadence(List.of(0L, 600_000L), 600_000)).as("two bursts are no cadence yet")
                .isNull();
    }

    @Test
    void aBurstOverTwoMinutesIsOneBurst() {
        for (int m = 0; m < 60; m++) {
            submit(m, m == 20 || m == 21 ? 82 : 2);
        }

        assertThat(arrivals.stream(T0 + 60 * MINUTE, T0).bursts()).containsExactly(160L);
    }

    private void submit(int minute, int count) {
        for (int i = 0; i < count; i++) {
            TaskSubmitted t = TaskSubmitted.newBuilder().setTaskId("t" + minute + "-" + i).setPool("p")
                    .setLabels(Map.of()).setSubmittedAt(Instant.ofEpochMilli(T0)).build();
            arrivals.submitted(t, T0 + minute * MINUTE + i);
        }
    }
}
