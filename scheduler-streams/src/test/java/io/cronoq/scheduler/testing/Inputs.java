package io.cronoq.scheduler.testing;

import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What producers and worker agents would send, produced straight onto a scheduler's input topics in their
 * envelopes, keyed by pool; each send is acknowledged before it returns.
 */
public final class Inputs implements AutoCloseable {

    private final Topics topics;
    private final KafkaProducer<String, byte[]> producer;

    /** A producer on the test broker for the scheduler with these topics. */
    public Inputs(KafkaBroker broker, Topics topics) {
        this.topics = topics;
        this.producer = new KafkaProducer<>(broker.producerProps(), new StringSerializer(), new ByteArraySerializer());
    }

    /** Submits a task with this payload (as text), submitted now. */
    public void submit(String taskId, String pool, Map<String, String> labels, String payload) {
        submit(TaskSubmitted.newBuilder().setTaskId(taskId).setPool(pool).setLabels(labels)
                .setPayload(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)))
                .setSubmittedAt(Instant.now()).build());
    }

    /** Submits a task as given. */
    public void submit(TaskSubmitted task) {
        send(task.getPool(), task);
    }

    /** Asks to cancel a task, now, for the reason {@code test}. */
    public void cancel(String taskId, String pool) {
        send(pool, TaskCancelRequested.newBuilder().setTaskId(taskId).setPool(pool).setReason("test")
                .setRequestedAt(Instant.now()).build());
    }

    /** Registers a worker (unsigned) with these labels and slots. */
    public void register(String pool, String worker, Map<String, String> labels, int slots) {
        send(pool, WorkerRegistered.newBuilder().setWorkerId(worker).setPool(pool).setLabels(labels).setSlots(slots)
                .setRegisteredAt(Instant.now()).build());
    }

    /** A worker leaves its pool, stopped. */
    public void leave(String pool, String worker) {
        send(pool, WorkerLeft.newBuilder().setWorkerId(worker).setPool(pool).setReason("stopped").setAt(Instant.now())
                .build());
    }

    /** A worker reports that it started an attempt. */
    public void start(String pool, String task, int attempt, String worker, long generation) {
        send(pool, AttemptStarted.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setAt(Instant.now()).build());
    }

    /** A worker reports that an attempt succeeded, without a result. */
    public void succeed(String pool, String task, int attempt, String worker, long generation) {
        send(pool, AttemptSucceeded.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt)
                .setWorkerId(worker).setGeneration(generation).setAt(Instant.now()).build());
    }

    /** A worker reports that an attempt failed, not to be retried. */
    public void fail(String pool, String task, int attempt, String worker, long generation, String error) {
        send(pool, AttemptFailed.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setError(error).setRetryable(false).setAt(Instant.now()).build());
    }

    /** Bytes that are not a cronoq event, on the submissions topic: the scheduler dead-letters them. */
    public void poison(String pool) {
        put(topics.submissions().name(), pool, new byte[] {42, 42, 42});
    }

    /**
     * Sends an input event on its topic, in its envelope: {@code Task*} and {@code Gang*} events are submissions,
     * {@code Worker*} events the workers' topic, attempt reports completions.
     */
    public void send(String pool, SpecificRecord event) {
        send(pool, event, null);
    }

    /** {@link #send(String, SpecificRecord)} with the record stamped {@code timestamp} (null: the producer's clock). */
    public void send(String pool, SpecificRecord event, Long timestamp) {
        String name = event.getSchema().getName();
        if (name.startsWith("Task") || name.startsWith("Gang")) {
            String topic = topics.submissions().name();
            put(topic, pool, topics.submissions().valueSerde().serializer().serialize(topic, new SubmissionEvent(event)),
                    timestamp);
        } else if (name.startsWith("Worker")) {
            String topic = topics.workers().name();
            put(topic, pool, topics.workers().valueSerde().serializer().serialize(topic, new WorkerEvent(event)),
                    timestamp);
        } else {
            String topic = topics.completions().name();
            put(topic, pool, topics.completions().valueSerde().serializer().serialize(topic, new CompletionEvent(event)),
                    timestamp);
        }
    }

    /** Sends raw bytes to a topic and waits for the acknowledgement. */
    public void put(String topic, String key, byte[] value) {
        put(topic, key, value, null);
    }

    private void put(String topic, String key, byte[] value, Long timestamp) {
        try {
            producer.send(new ProducerRecord<>(topic, null, timestamp, key, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not produce to " + topic, e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
