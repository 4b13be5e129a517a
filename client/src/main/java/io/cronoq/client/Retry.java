package io.cronoq.client;

import io.cronoq.events.RetryPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * How often and how soon a failed task is tried again: at most {@code maxAttempts} attempts in all,
 * waiting {@code initialBackoff} before the second, multiplied by {@code multiplier} each time up to
 * {@code maxBackoff}. An immutable value; the scheduler checks the numbers, and {@link
 * Task.Builder#build()} refuses a policy it would refuse.
 *
 * @param maxAttempts    attempts in all, the first included (1 = never retried)
 * @param initialBackoff the wait before the second attempt
 * @param maxBackoff     the longest wait between two attempts
 * @param multiplier     how much each wait grows over the previous one (1 = constant)
 */
public record Retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff, double multiplier) {

    /** The scheduler's default: 3 attempts, 1 s backoff doubling up to 60 s. */
    public static final Retry DEFAULT = new Retry(3, Duration.ofSeconds(1), Duration.ofSeconds(60), 2.0);

    /** Checks that nothing is missing. */
    public Retry {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
    }

    /** At most {@code maxAttempts} attempts with the default backoff. */
    public static Retry attempts(int maxAttempts) {
        return new Retry(maxAttempts, DEFAULT.initialBackoff, DEFAULT.maxBackoff, DEFAULT.multiplier);
    }

    /** One attempt: a failure is final. */
    public static Retry never() {
        return attempts(1);
    }

    /** The same policy with another first wait and cap. */
    public Retry withBackoff(Duration initial, Duration max) {
        return new Retry(maxAttempts, initial, max, multiplier);
    }

    /** The same policy with another growth factor. */
    public Retry withMultiplier(double factor) {
        return new Retry(maxAttempts, initialBackoff, maxBackoff, factor);
    }

    RetryPolicy toEvent() {
        return new RetryPolicy(maxAttempts, initialBackoff.toMillis(), maxBackoff.toMillis(), multiplier);
    }
}
