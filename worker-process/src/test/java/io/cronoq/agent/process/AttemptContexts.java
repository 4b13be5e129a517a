package io.cronoq.agent.process;

import io.cronoq.agent.CancellationSignal;
import io.cronoq.agent.Gang;
import io.cronoq.agent.TaskContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/** Attempts for the process handler's tests: attempt 1 of a task, generation 1, no payload, deadline or lease. */
final class AttemptContexts {

    private AttemptContexts() {}

    /** Attempt 1 of {@code taskId} in {@code pool} on {@code workerId}, in {@code gang} (or none), with these parents' results. */
    static TaskContext of(String taskId, String pool, String workerId, Gang gang, Map<String, byte[]> parentResults) {
        CancellationSignal cancel = new CancellationSignal();
        return new TaskContext() {
            @Override
            public String taskId() {
                return taskId;
            }

            @Override
            public int attempt() {
                return 1;
            }

            @Override
            public String pool() {
                return pool;
            }

            @Override
            public String workerId() {
                return workerId;
            }

            @Override
            public long generation() {
                return 1;
            }

            @Override
            public Map<String, String> group() {
                return Map.of();
            }

            @Override
            public byte[] payload() {
                return new byte[0];
            }

            @Override
            public Optional<Instant> deadline() {
                return Optional.empty();
            }

            @Override
            public Optional<Duration> timeout() {
                return Optional.empty();
            }

            @Override
            public Optional<Gang> gang() {
                return Optional.ofNullable(gang);
            }

            @Override
            public Map<String, byte[]> parentResults() {
                return parentResults;
            }

            @Override
            public CancellationSignal cancellation() {
                return cancel;
            }

            @Override
            public void progress(Double fraction, String message) {
            }
        };
    }
}
