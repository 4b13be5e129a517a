package io.cronoq.scheduler.policy;

/**
 * The durations the policy's time rules use, as one value (the scheduler's settings fill it; see
 * {@code SchedulerConfig}). The policy never reads a clock: these are compared with the times of
 * inputs and of ticks.
 *
 * @param heartbeatTimeoutMs a live worker whose last heartbeat is older than this is evicted
 * @param reservationLeadMs  how long before a fixed start a matching slot is held for the task
 * @param deadlineLeadMs     how close to its deadline a waiting task moves ahead of tasks without a near deadline
 * @param priorityStepMs     what one priority class is worth in waiting time (the aging rule, {@link Ordering#rank})
 * @param startToleranceMs   a fixed start's tolerance when the task gives none
 * @param retentionMs        how long a finished task's record stays in the stores after it finished
 *                           ({@code TaskForgotten} then); 0 keeps every finished task forever
 * @param leaveGraceMs       how long after a worker's leave (heard on the scheduler's clock) the reports of the
 *                           attempts it still held are accepted ({@link Leaves}); 0 loses them at the leave
 * @param gangReserveAfterMs how long a gang that could fit waits for its slots to free at once before slots that free
 *                           where it can go are held for it ({@link GangPlacer}); 0 reserves at once
 * @param gangReservationMs  how long a gang's reservation holds slots at most before it is released and retried later
 * @param gangStartTimeoutMs how long after its assignment a gang's member may take to start: past it, its gang's
 *                           attempt ends as if the member failed (its process did not come up)
 */
public record TimeRules(long heartbeatTimeoutMs, long reservationLeadMs, long deadlineLeadMs, long priorityStepMs,
                        long startToleranceMs, long retentionMs, long leaveGraceMs, long gangReserveAfterMs,
                        long gangReservationMs, long gangStartTimeoutMs) {

    /** A gang's member must start within 5 min of its assignment when the settings do not say. */
    public static final long DEFAULT_GANG_START_TIMEOUT_MS = 300_000;

    /** A gang waits 60 s for its slots before it reserves them when the settings do not say. */
    public static final long DEFAULT_GANG_RESERVE_AFTER_MS = 60_000;

    /** A gang's reservation holds slots at most 5 min when the settings do not say. */
    public static final long DEFAULT_GANG_RESERVATION_MS = 300_000;

    /** Finished tasks are kept 7 days when the settings do not say. */
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 3600 * 1000;

    /** A leaving worker's last reports are awaited 5 s when the settings do not say. */
    public static final long DEFAULT_LEAVE_GRACE_MS = 5_000;

    /** 30 s without heartbeat; slots held 30 s ahead; deadlines urgent 10 min ahead; a class is worth 5 min; 1 min tolerance; finished tasks kept 7 days; a leave's reports awaited 5 s. */
    public static final TimeRules DEFAULT = new TimeRules(30_000, 30_000, 600_000, 300_000, 60_000, DEFAULT_RETENTION_MS,
            DEFAULT_LEAVE_GRACE_MS);

    public TimeRules {
        positive("heartbeatTimeoutMs", heartbeatTimeoutMs);
        notNegative("reservationLeadMs", reservationLeadMs);
        notNegative("deadlineLeadMs", deadlineLeadMs);
        notNegative("priorityStepMs", priorityStepMs);
        notNegative("startToleranceMs", startToleranceMs);
        notNegative("retentionMs", retentionMs);
        notNegative("leaveGraceMs", leaveGraceMs);
        notNegative("gangReserveAfterMs", gangReserveAfterMs);
        positive("gangReservationMs", gangReservationMs);
        positive("gangStartTimeoutMs", gangStartTimeoutMs);
    }

    /** The rules with the default gang start timeout. */
    public TimeRules(long heartbeatTimeoutMs, long reservationLeadMs, long deadlineLeadMs, long priorityStepMs,
                     long startToleranceMs, long retentionMs, long leaveGraceMs, long gangReserveAfterMs,
                     long gangReservationMs) {
        this(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs, retentionMs,
                leaveGraceMs, gangReserveAfterMs, gangReservationMs, DEFAULT_GANG_START_TIMEOUT_MS);
    }

    /** The rules of the other durations with the default gang reservation rules. */
    public TimeRules(long heartbeatTimeoutMs, long reservationLeadMs, long deadlineLeadMs, long priorityStepMs,
                     long startToleranceMs, long retentionMs, long leaveGraceMs) {
        this(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs, retentionMs,
                leaveGraceMs, DEFAULT_GANG_RESERVE_AFTER_MS, DEFAULT_GANG_RESERVATION_MS);
    }

    /** The rules of the other durations with the default leave grace ({@link #DEFAULT_LEAVE_GRACE_MS}). */
    public TimeRules(long heartbeatTimeoutMs, long reservationLeadMs, long deadlineLeadMs, long priorityStepMs,
                     long startToleranceMs, long retentionMs) {
        this(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs, retentionMs,
                DEFAULT_LEAVE_GRACE_MS);
    }

    /** These rules with finished tasks kept {@code retentionMs} (0: forever). */
    public TimeRules withRetentionMs(long retentionMs) {
        return new TimeRules(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs,
                retentionMs, leaveGraceMs, gangReserveAfterMs, gangReservationMs, gangStartTimeoutMs);
    }

    /** These rules with a leaving worker's reports awaited {@code leaveGraceMs} (0: its attempts are lost at the leave). */
    public TimeRules withLeaveGraceMs(long leaveGraceMs) {
        return new TimeRules(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs,
                retentionMs, leaveGraceMs, gangReserveAfterMs, gangReservationMs, gangStartTimeoutMs);
    }

    /** These rules with a gang reserving after {@code reserveAfterMs} and holding for at most {@code reservationMs}. */
    public TimeRules withGangReservation(long reserveAfterMs, long reservationMs) {
        return new TimeRules(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs,
                retentionMs, leaveGraceMs, reserveAfterMs, reservationMs, gangStartTimeoutMs);
    }

    /** These rules with a gang's member bound to start within {@code startTimeoutMs} of its assignment. */
    public TimeRules withGangStartTimeout(long startTimeoutMs) {
        return new TimeRules(heartbeatTimeoutMs, reservationLeadMs, deadlineLeadMs, priorityStepMs, startToleranceMs,
                retentionMs, leaveGraceMs, gangReserveAfterMs, gangReservationMs, startTimeoutMs);
    }

    private static void positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " is " + value + "; it must be more than 0");
        }
    }

    private static void notNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " is " + value + "; it must be 0 or more");
        }
    }
}
