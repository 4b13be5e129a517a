package io.cronoq.agent;

/**
 * Thrown by {@link CancellationSignal#throwIfCancelled()} when the attempt was revoked, fenced or stopped; it
 * carries the reason. A handler may let it propagate: the worker does not report a cancelled attempt as failed
 * (the scheduler already ended it), except when the worker itself is stopping at once.
 */
public class AttemptCancelledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public AttemptCancelledException(String reason) {
        super(reason);
    }
}
