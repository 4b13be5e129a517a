package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HopsTest {

    private static final long MS = 1_000_000L;

    /** Hops whose wall clock is nanoTime itself, over tasks 10 to 209 named by their number. */
    private static Hops hops() {
        return new Hops(10, 200, id -> id.matches("[0-9]+") ? Long.parseLong(id) : -1, 0);
    }

    /** Task {@code k}, due at k seconds: acknowledged 1 ms later, decided {@code inMs} after that, appended 3 ms later, read 10 ms later. */
    private static void task(Hops hops, long k, long inMs, boolean appendTime) {
        long due = k * 1000 * MS;
        hops.acked(k, due + MS);
        long decidedMs = k * 1000 + 1 + inMs;
        hops.heard(String.valueOf(k), decidedMs);
        hops.assigned(String.valueOf(k), due, appendTime ? decidedMs + 3 : -1, (decidedMs + 13) * MS);
    }

    @Test
    void eachHopIsTheTimeBetweenTwoMomentsOfATask() {
        Hops hops = hops();
        for (long k = 10; k < 210; k++) {
            task(hops, k, k == 50 ? 400 : k == 60 ? 300 : k == 70 ? 200 : 5, true);
        }

        Hops.Summary summary = hops.summary();

        assertThat(summary.tasks()).isEqualTo(200);
        assertThat(summary.split()).isTrue();
        assertThat(summary.percentiles().get(Hops.Hop.SENT)).isEqualTo(new Hops.Percentiles(1, 1, 1));
        assertThat(summary.percentiles().get(Hops.Hop.INTO_SCHEDULER)).isEqualTo(new Hops.Percentiles(5, 200, 400));
        assertThat(summary.percentiles().get(Hops.Hop.OUT_TO_LOG)).isEqualTo(new Hops.Percentiles(3, 3, 3));
        assertThat(summary.percentiles().get(Hops.Hop.COMMITTED_AND_READ)).isEqualTo(new Hops.Percentiles(10, 10, 10));
        // The slowest 1% of 200 tasks are the two that waited to be taken in.
        assertThat(summary.tailFromMs()).isEqualTo(314.0);
        assertThat(summary.tailMeanMs().get(Hops.Hop.INTO_SCHEDULER)).isEqualTo(350.0);
        assertThat(summary.tailMeanMs().get(Hops.Hop.COMMITTED_AND_READ)).isEqualTo(10.0);
        assertThat(summary.slowestMs()).isEqualTo(414.0);
        assertThat(summary.slowestDue()).isEqualTo("1970-01-01T00:00:50Z");
        assertThat(summary.slowestHopsMs().get(Hops.Hop.INTO_SCHEDULER)).isEqualTo(400.0);
    }

    @Test
    void tasksOutsideTheMeasuredOnesOrNeverAcknowledgedAreLeftOutAndOnlyTheFirstAssignmentCounts() {
        Hops hops = hops();
        task(hops, 10, 5, true);
        task(hops, 9, 900, true);
        task(hops, 210, 900, true);
        hops.heard("11", 11_006);
        hops.assigned("11", 11_000 * MS, 11_009, 11_019 * MS); // never acknowledged
        hops.acked(12, 12_001 * MS);
        hops.assigned("12", 12_000 * MS, 12_009, 12_019 * MS); // its input never heard of
        hops.heard("not-a-task", 0);
        hops.assigned("not-a-task", 0, 0, 0);
        hops.heard("10", 10_500); // a second assignment of task 10
        hops.assigned("10", 10_000 * MS, 10_503, 10_513 * MS);

        Hops.Summary summary = hops.summary();

        assertThat(summary.tasks()).isEqualTo(1);
        assertThat(summary.slowestMs()).isEqualTo(19.0);
    }

    @Test
    void withoutAppendTimesTheTimeOutToTheLogIsPartOfTheLastHop() {
        Hops hops = hops();
        task(hops, 10, 5, true);
        task(hops, 11, 5, false);

        Hops.Summary summary = hops.summary();

        assertThat(summary.split()).isFalse();
        assertThat(summary.percentiles()).doesNotContainKey(Hops.Hop.OUT_TO_LOG);
        assertThat(summary.percentiles().get(Hops.Hop.COMMITTED_AND_READ)).isEqualTo(new Hops.Percentiles(13, 13, 13));
    }

    @Test
    void noTaskMeansNoHops() {
        assertThat(hops().summary().tasks()).isZero();
    }
}
