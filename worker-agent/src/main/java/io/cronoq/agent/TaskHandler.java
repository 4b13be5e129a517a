package io.cronoq.agent;

/**
 * The work a worker does for one attempt. Returning completes the attempt ({@code AttemptSucceeded}, with the
 * returned bytes as its result, or none for {@code null}); throwing fails it ({@code AttemptFailed}), retryably
 * unless the exception is a {@link NonRetryableException}. A handler should watch
 * {@link TaskContext#cancellation()}: when the attempt is revoked or fenced its thread is interrupted and whatever
 * it then returns or throws is not reported.
 */
@FunctionalInterface
public interface TaskHandler {

    /**
     * Runs one attempt.
     *
     * @return the result to publish with the success, or {@code null} for none
     * @throws Exception to fail the attempt
     */
    byte[] handle(TaskContext ctx) throws Exception;
}
