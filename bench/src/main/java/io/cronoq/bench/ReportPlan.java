package io.cronoq.bench;

/**
 * When a simulated worker reports an attempt, as an agent does: {@code AttemptStarted} held back for a
 * short delay and left out when the attempt ends within it (the success alone then says it ran), else
 * sent after the delay; {@code AttemptSucceeded} when the run time is up. With no delay both go out
 * as before: the start at once.
 *
 * @param startedAfterNanos   when {@code AttemptStarted} goes, from the assignment's arrival, or {@link #NEVER}
 * @param succeededAfterNanos when {@code AttemptSucceeded} goes, from the assignment's arrival
 */
record ReportPlan(long startedAfterNanos, long succeededAfterNanos) {

    /** {@code AttemptStarted} is not sent. */
    static final long NEVER = -1;

    /** The reports of an attempt that runs {@code runNanos}, its start held back {@code startDelayNanos}. */
    static ReportPlan of(long runNanos, long startDelayNanos) {
        if (startDelayNanos == 0) {
            return new ReportPlan(0, runNanos);
        }
        return new ReportPlan(runNanos > startDelayNanos ? startDelayNanos : NEVER, runNanos);
    }

    /** Whether {@code AttemptStarted} is sent at all. */
    boolean reportsStarted() {
        return startedAfterNanos != NEVER;
    }
}
