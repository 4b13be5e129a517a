package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A simulated worker reports like an agent: the start held back, and left out for an attempt that ends within the delay. */
class ReportPlanTest {

    private static final long MS = 1_000_000;

    @Test
    void anInstantAttemptIsReportedByItsSuccessAlone() {
        ReportPlan plan = ReportPlan.of(0, 20 * MS);
        assertThat(plan.reportsStarted()).isFalse();
        assertThat(plan.succeededAfterNanos()).isZero();
    }

    @Test
    void anAttemptThatEndsWithinTheDelayIsReportedByItsSuccessAlone() {
        ReportPlan plan = ReportPlan.of(20 * MS, 20 * MS);
        assertThat(plan.reportsStarted()).isFalse();
        assertThat(plan.succeededAfterNanos()).isEqualTo(20 * MS);
    }

    @Test
    void aLongerAttemptReportsItsStartAfterTheDelayAndItsSuccessAtTheEnd() {
        ReportPlan plan = ReportPlan.of(100 * MS, 20 * MS);
        assertThat(plan.reportsStarted()).isTrue();
        assertThat(plan.startedAfterNanos()).isEqualTo(20 * MS);
        assertThat(plan.succeededAfterNanos()).isEqualTo(100 * MS);
    }

    @Test
    void withoutADelayBothGoAsBefore() {
        assertThat(ReportPlan.of(0, 0)).isEqualTo(new ReportPlan(0, 0));
        assertThat(ReportPlan.of(100 * MS, 0)).isEqualTo(new ReportPlan(0, 100 * MS));
    }
}
