package io.cronoq.agent;

/**
 * Thrown by a {@link TaskHandler} to fail an attempt with exactly this message as the reported error (other
 * exceptions are reported as {@code ClassName: message}) and an explicit retryability.
 */
public class TaskFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean retryable;

    public TaskFailedException(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    /** Whether the scheduler may run the task again (within its retry policy). */
    public boolean retryable() {
        return retryable;
    }
}
