package io.cronoq.agent;

/**
 * Thrown by a {@link TaskHandler} to fail an attempt for good: the attempt is reported with
 * {@code retryable = false}, so the scheduler does not try the task again. Any other exception fails the attempt
 * retryably (the task's retry policy decides whether it runs again).
 */
public class NonRetryableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Fails the attempt for good; the message says why. */
    public NonRetryableException(String message) {
        super(message);
    }
}
