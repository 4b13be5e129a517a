package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Priority;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Input events for pool {@code p}, built with constructors (Avro 1.12 builders resolve enum
 * defaults through a class allow-list). Times do not matter to placement; all inputs use {@link #T0}.
 */
final class In {

    static final String POOL = "p";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private In() {}

    /** Labels from {@code "name=value"} strings. */
    static Map<String, String> labels(String... pairs) {
        Map<String, String> labels = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            labels.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return labels;
    }

    static TaskSubmitted task(String id, String... required) {
        return new TaskSubmitted(id, POOL, labels(required), null,
                ByteBuffer.wrap(("payload of " + id).getBytes(StandardCharsets.UTF_8)), Priority.NORMAL, null, null,
                null, null, 30_000L, null, List.of(), null, T0);
    }

    static TaskSubmitted task(String id, RetryPolicy retry, String... required) {
        TaskSubmitted task = task(id, required);
        task.setRetry(retry);
        return task;
    }

    static RetryPolicy retries(int maxAttempts) {
        return new RetryPolicy(maxAttempts, 1_000L, 60_000L, 2.0);
    }

    static TaskCancelRequested cancel(String id) {
        return new TaskCancelRequested(id, POOL, "no longer needed", "tests", T0);
    }

    static WorkerRegistered worker(String id, int slots, String... labels) {
        return new WorkerRegistered(id, POOL, labels(labels), slots, null, null, null, T0);
    }

    static WorkerHeartbeat heartbeat(String id, long generation, Instant at) {
        return new WorkerHeartbeat(id, POOL, generation, List.of(), at);
    }

    static WorkerDraining drain(String id) {
        return new WorkerDraining(id, POOL, null, T0);
    }

    static WorkerLeft left(String id, String reason) {
        return new WorkerLeft(id, POOL, null, reason, T0);
    }

    static AttemptStarted started(AttemptAssigned a) {
        return new AttemptStarted(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0);
    }

    static AttemptSucceeded succeeded(AttemptAssigned a) {
        return new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0, null);
    }

    static AttemptFailed failed(AttemptAssigned a, String error, boolean retryable) {
        return new AttemptFailed(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0, error,
                retryable);
    }
}
