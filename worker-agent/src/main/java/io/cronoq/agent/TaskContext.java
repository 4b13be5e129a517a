package io.cronoq.agent;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link TaskHandler} knows about the attempt it runs: which task and attempt, the labels of the group it
 * was assigned to ({@code ctx.group}), the payload, the deadline and lease, a cancellation signal, and a way to
 * report progress. Valid for the duration of the handler call.
 */
public interface TaskContext {

    /** The task's id. */
    String taskId();

    /** The attempt number, from 1; a retried or re-queued task runs as a higher attempt. */
    int attempt();

    /** The pool the task belongs to. */
    String pool();

    /** The id of the worker running the attempt. */
    String workerId();

    /** The worker generation the attempt was assigned under. */
    long generation();

    /** The labels of the group the attempt was assigned to (may carry more labels than the task required). */
    Map<String, String> group();

    /** The task's payload (empty when it has none). */
    byte[] payload();

    /** The payload read as UTF-8 text. */
    default String payloadAsString() {
        return new String(payload(), StandardCharsets.UTF_8);
    }

    /** The task's deadline, if it has one: it raised the task's urgency; it does not cancel it. */
    Optional<Instant> deadline();

    /** The task's lease, if it has one: an attempt running longer may be revoked by the scheduler. */
    Optional<Duration> timeout();

    /**
     * The attempt's fixed start, if its task has one: the worker held the slot and called the handler at this time,
     * not before (a little later when it was assigned late).
     */
    default Optional<Instant> startAt() {
        return Optional.empty();
    }

    /**
     * The gang the attempt belongs to, if its task is a member of one: its id, size, this member's rank and
     * every member's address and worker in rank order. Empty for a task of its own.
     */
    default Optional<Gang> gang() {
        return Optional.empty();
    }

    /**
     * The results of the task's parents that returned one with their success, by parent task id (empty for a task
     * without parents, or whose parents returned none).
     */
    default Map<String, byte[]> parentResults() {
        return Map.of();
    }

    /** Fires when the attempt must stop (revoked, fenced, or the worker stops at once). */
    CancellationSignal cancellation();

    /** Whether the attempt must stop; shorthand for {@code cancellation().isCancelled()}. */
    default boolean isCancelled() {
        return cancellation().isCancelled();
    }

    /**
     * Reports how far the attempt is ({@code AttemptProgress} on the completions topic). Does not block on the
     * broker.
     *
     * @param fraction between 0 and 1, or {@code null} when unknown
     * @param message  free text, or {@code null}
     * @throws IllegalArgumentException if the fraction is outside [0, 1]
     */
    void progress(Double fraction, String message);
}
