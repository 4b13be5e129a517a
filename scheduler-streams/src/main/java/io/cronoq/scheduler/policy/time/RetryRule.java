package io.cronoq.scheduler.policy.time;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskRecord;

/**
 * How often a task is tried again, as a value read from the task's {@code RetryPolicy} (schema
 * defaults when it has none: at most 3 attempts, backoff 1 s doubling up to 60 s).
 * {@code maxAttempts} bounds the attempts that ended without success: failed, lost with their
 * worker (evicted, left, re-registered) or revoked at the end of their lease. A retry after a
 * failure or an expired lease waits its backoff outside the line, then takes its original place
 * again; a lost attempt is retried at once (its worker failed, not the task).
 */
public record RetryRule(int maxAttempts, long initialBackoffMs, long maxBackoffMs, double multiplier) {

    public static final RetryRule DEFAULT = new RetryRule(3, 1_000, 60_000, 2.0);

    /** The rule of this task. */
    public static RetryRule of(TaskRecord task) {
        return of(task.getTask().getRetry());
    }

    public static RetryRule of(RetryPolicy policy) {
        if (policy == null) {
            return DEFAULT;
        }
        return new RetryRule(policy.getMaxAttempts(), policy.getInitialBackoffMs(), policy.getMaxBackoffMs(),
                policy.getMultiplier());
    }

    /** The attempts of a task that ended without success: failed, lost with their worker, revoked at their lease's end. */
    public static int spent(TaskRecord task) {
        int spent = 0;
        for (AttemptRecord a : task.getAttempts()) {
            AttemptOutcome o = a.getOutcome();
            if (o == AttemptOutcome.FAILED || o == AttemptOutcome.LOST || o == AttemptOutcome.REVOKED) {
                spent++;
            }
        }
        return spent;
    }

    /** Why a task with {@code spentAttempts} unsuccessful attempts gets no other, in the journal's words. */
    public String exhausted(int spentAttempts) {
        return "no attempts left (" + spentAttempts + " of " + maxAttempts + " ended without success)";
    }

    /** Whether a task with {@code spentAttempts} attempts ended without success gets another one. */
    public boolean retries(int spentAttempts, boolean retryable) {
        return retryable && spentAttempts < maxAttempts;
    }

    /** The wait before the attempt that follows {@code spentAttempts} unsuccessful ones: initial × multiplier^(n−1), capped. */
    public long backoffMs(int spentAttempts) {
        double ms = initialBackoffMs * Math.pow(multiplier, Math.max(0, spentAttempts - 1));
        return (long) Math.min(ms, (double) maxBackoffMs);
    }
}
