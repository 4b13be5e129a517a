package io.cronoq.agent;

import io.cronoq.events.AttemptAssigned;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * What a handler is given for one assigned attempt: the attempt's identity and inputs as assigned, its
 * cancellation signal, and where its progress goes (the worker reports it while the attempt is not over).
 */
record AttemptContext(AttemptId id, String pool, String workerId, long generation, Map<String, String> group,
                      AttemptAssigned assigned, CancellationSignal cancellation,
                      BiConsumer<Double, String> progressReports) implements TaskContext {

    AttemptContext(AttemptAssigned assigned, WorkerSettings settings, BiConsumer<Double, String> progressReports) {
        this(new AttemptId(assigned.getTaskId(), assigned.getAttempt()), settings.pool(), settings.id(),
                assigned.getGeneration(), Collections.unmodifiableMap(new LinkedHashMap<>(assigned.getGroup())),
                assigned, new CancellationSignal(), progressReports);
    }

    @Override
    public String taskId() {
        return id.taskId();
    }

    @Override
    public int attempt() {
        return id.attempt();
    }

    @Override
    public byte[] payload() {
        ByteBuffer buffer = assigned.getPayload().duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    @Override
    public Map<String, byte[]> parentResults() {
        Map<String, byte[]> results = new java.util.TreeMap<>();
        assigned.getParentResults().forEach((parent, bytes) -> {
            ByteBuffer b = bytes.duplicate();
            byte[] copy = new byte[b.remaining()];
            b.get(copy);
            results.put(parent, copy);
        });
        return Collections.unmodifiableMap(results);
    }

    @Override
    public Optional<Instant> deadline() {
        return Optional.ofNullable(assigned.getDeadline());
    }

    @Override
    public Optional<Duration> timeout() {
        return Optional.ofNullable(assigned.getTimeoutMs()).map(Duration::ofMillis);
    }

    @Override
    public Optional<Instant> startAt() {
        return Optional.ofNullable(assigned.getStartAt());
    }

    @Override
    public Optional<Gang> gang() {
        return Optional.ofNullable(Gang.of(assigned.getGang()));
    }

    @Override
    public void progress(Double fraction, String message) {
        if (fraction != null && (fraction.isNaN() || fraction < 0 || fraction > 1)) {
            throw new IllegalArgumentException("progress fraction is " + fraction + "; it must be between 0 and 1");
        }
        progressReports.accept(fraction, message);
    }

    @Override
    public String toString() {
        return "attempt " + id + " in pool " + pool + " on " + workerId + " generation " + generation;
    }
}
