package io.cronoq.agent;

/**
 * The scheduler refused the worker's registration ({@code RegistrationRejected}); the worker has stopped and
 * gets no task. The message is the scheduler's reason.
 */
public class RegistrationRejectedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String code;

    public RegistrationRejectedException(String workerId, String code, String reason) {
        super("worker " + workerId + " was refused by the scheduler (" + code + "): " + reason);
        this.code = code;
    }

    /** The scheduler's rejection code, e.g. {@code PERMISSION_DENIED}. */
    public String code() {
        return code;
    }
}
