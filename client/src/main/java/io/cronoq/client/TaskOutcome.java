package io.cronoq.client;

import io.cronoq.events.TaskState;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * How a task ended, as the scheduler journaled it: {@link TaskState#SUCCEEDED}, {@link
 * TaskState#FAILED} (no attempts left, or a failure that is not retryable) or {@link
 * TaskState#CANCELLED}. A failed attempt that will be retried is not an outcome. Immutable.
 */
public final class TaskOutcome {

    private final String taskId;
    private final String pool;
    private final TaskState state;
    private final int attempt;
    private final String workerId;
    private final String message;
    private final byte[] result;
    private final Instant at;

    TaskOutcome(String taskId, String pool, TaskState state, int attempt, String workerId, String message,
                byte[] result, Instant at) {
        this.taskId = Objects.requireNonNull(taskId, "taskId");
        this.pool = Objects.requireNonNull(pool, "pool");
        this.state = Objects.requireNonNull(state, "state");
        this.attempt = attempt;
        this.workerId = workerId;
        this.message = message;
        this.result = result;
        this.at = Objects.requireNonNull(at, "at");
    }

    /** The task's id. */
    public String taskId() {
        return taskId;
    }

    /** The pool it ran in. */
    public String pool() {
        return pool;
    }

    /** SUCCEEDED, FAILED or CANCELLED. */
    public TaskState state() {
        return state;
    }

    /** Whether the task succeeded. */
    public boolean succeeded() {
        return state == TaskState.SUCCEEDED;
    }

    /** The number of the last attempt (from 1); 0 when the task was cancelled. */
    public int attempt() {
        return attempt;
    }

    /** The worker of the last attempt, when one ran it. */
    public Optional<String> workerId() {
        return Optional.ofNullable(workerId);
    }

    /** The last attempt's error (FAILED) or the reason given for cancelling (CANCELLED). */
    public Optional<String> message() {
        return Optional.ofNullable(message);
    }

    /** A copy of the result the worker reported with its success, if it reported one. */
    public Optional<byte[]> result() {
        return Optional.ofNullable(result).map(byte[]::clone);
    }

    int resultLength() {
        return result == null ? 0 : result.length;
    }

    /** The event time of the decision that ended the task. */
    public Instant at() {
        return at;
    }

    @Override
    public String toString() {
        return "TaskOutcome[" + taskId + " in " + pool + ": " + state + (attempt > 0 ? " after attempt " + attempt : "")
                + (workerId == null ? "" : " on " + workerId) + (message == null ? "" : " (" + message + ")") + "]";
    }
}
