package io.cronoq.scheduler.policy;

import io.cronoq.events.RetryPolicy;

/**
 * How often a failed task is tried again, as a value read from the task's {@code RetryPolicy}
 * (schema defaults when it has none: 3 attempts). {@code maxAttempts} bounds the attempts that
 * FAILED; a LOST attempt (its worker left or re-registered) is not the task's fault and does not
 * count. The backoff is computed here but not applied yet: placement reads no clock, so holding a
 * retry until its backoff has passed belongs to the punctuator (the time issue). Today a retryable
 * failure re-queues at once, at the task's original place in line.
 */
record RetryRule(int maxAttempts, long initialBackoffMs, long maxBackoffMs, double multiplier) {

    static final RetryRule DEFAULT = new RetryRule(3, 1_000, 60_000, 2.0);

    static RetryRule of(RetryPolicy policy) {
        if (policy == null) {
            return DEFAULT;
        }
        return new RetryRule(policy.getMaxAttempts(), policy.getInitialBackoffMs(), policy.getMaxBackoffMs(),
                policy.getMultiplier());
    }

    /** Whether a task whose attempts have failed {@code failedAttempts} times gets another one. */
    boolean retries(int failedAttempts, boolean retryable) {
        return retryable && failedAttempts < maxAttempts;
    }

    /** The wait before the attempt that follows {@code failedAttempts} failures (the seam for the time issue). */
    long backoffMs(int failedAttempts) {
        double ms = initialBackoffMs * Math.pow(multiplier, Math.max(0, failedAttempts - 1));
        return (long) Math.min(ms, (double) maxBackoffMs);
    }
}
