package io.cronoq.client;

import static org.awaitility.Awaitility.await;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A worker as the scheduler sees it, driven by the test: registers, reads the assignments topic
 * (read_committed) for its own id, and reports attempts started, succeeded or failed.
 */
final class SimulatedWorker implements AutoCloseable {

    private final String pool;
    private final String workerId;
    private final Inputs inputs;
    private final KafkaConsumer<String, AssignmentEvent> assignments;
    private final List<AttemptAssigned> received = new ArrayList<>();

    SimulatedWorker(RunningScheduler scheduler, String pool, String workerId) {
        this.pool = pool;
        this.workerId = workerId;
        this.inputs = scheduler.inputs();
        Topics topics = scheduler.topics();
        KafkaBroker broker = scheduler.broker();
        this.assignments = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName(workerId)),
                topics.assignments().keySerde().deserializer(), topics.assignments().valueSerde().deserializer());
        assignments.subscribe(List.of(topics.assignments().name()));
    }

    void register(Map<String, String> labels, int slots) {
        inputs.send(pool, new WorkerRegistered(workerId, pool, labels, slots, null, null, null, null, Instant.now()));
    }

    /** Waits until the scheduler assigns this task to this worker. */
    AttemptAssigned awaitAssignment(String taskId) {
        return awaitAssignment(taskId, 1);
    }

    /** Waits until the scheduler assigns this attempt of the task to this worker. */
    AttemptAssigned awaitAssignment(String taskId, int attempt) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            poll();
            return find(taskId, attempt).isPresent();
        });
        return find(taskId, attempt).orElseThrow();
    }

    /** Every assignment this worker has read so far. */
    List<AttemptAssigned> received() {
        poll();
        return List.copyOf(received);
    }

    void succeed(AttemptAssigned a, byte[] result) {
        started(a);
        complete(new AttemptSucceeded(a.getTaskId(), pool, a.getAttempt(), workerId, a.getGeneration(), Instant.now(),
                result == null ? null : ByteBuffer.wrap(result)));
    }

    void fail(AttemptAssigned a, String error, boolean retryable) {
        started(a);
        complete(new AttemptFailed(a.getTaskId(), pool, a.getAttempt(), workerId, a.getGeneration(), Instant.now(),
                error, retryable));
    }

    private void started(AttemptAssigned a) {
        complete(new AttemptStarted(a.getTaskId(), pool, a.getAttempt(), workerId, a.getGeneration(), Instant.now()));
    }

    private void complete(SpecificRecord event) {
        inputs.send(pool, event);
    }

    private Optional<AttemptAssigned> find(String taskId, int attempt) {
        return received.stream().filter(a -> a.getTaskId().equals(taskId) && a.getAttempt() == attempt).findFirst();
    }

    private void poll() {
        assignments.poll(Duration.ofMillis(100)).forEach(r -> {
            if (workerId.equals(r.key())) {
                Assignments.events(r.value()).stream().filter(AttemptAssigned.class::isInstance)
                        .map(AttemptAssigned.class::cast).forEach(received::add);
            }
        });
    }

    @Override
    public void close() {
        inputs.close();
        assignments.close();
    }
}
