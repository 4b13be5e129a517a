package io.cronoq.gateway;

import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** What worker agents would send, produced straight onto the scheduler's input topics (keyed by pool). */
final class Inputs implements AutoCloseable {

    private final Topics topics;
    private final KafkaProducer<String, byte[]> producer;

    Inputs(KafkaBroker broker, Topics topics) {
        this.topics = topics;
        this.producer = new KafkaProducer<>(broker.producerProps(), new StringSerializer(), new ByteArraySerializer());
    }

    void register(String pool, String worker, Map<String, String> labels, int slots) {
        send(pool, WorkerRegistered.newBuilder().setWorkerId(worker).setPool(pool).setLabels(labels).setSlots(slots)
                .setRegisteredAt(Instant.now()).build());
    }

    void leave(String pool, String worker) {
        send(pool, WorkerLeft.newBuilder().setWorkerId(worker).setPool(pool).setReason("stopped").setAt(Instant.now())
                .build());
    }

    void start(String pool, String task, int attempt, String worker, long generation) {
        send(pool, AttemptStarted.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setAt(Instant.now()).build());
    }

    void succeed(String pool, String task, int attempt, String worker, long generation) {
        send(pool, AttemptSucceeded.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt)
                .setWorkerId(worker).setGeneration(generation).setAt(Instant.now()).build());
    }

    void fail(String pool, String task, int attempt, String worker, long generation, String error) {
        send(pool, AttemptFailed.newBuilder().setTaskId(task).setPool(pool).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setError(error).setRetryable(false).setAt(Instant.now()).build());
    }

    /** Bytes that are not a cronoq event, on the submissions topic: the scheduler dead-letters them. */
    void poison(String pool) {
        put(topics.submissions().name(), pool, new byte[] {42, 42, 42});
    }

    private void send(String pool, SpecificRecord event) {
        if (event.getSchema().getName().startsWith("Worker")) {
            String topic = topics.workers().name();
            put(topic, pool, topics.workers().valueSerde().serializer().serialize(topic, new WorkerEvent(event)));
        } else {
            String topic = topics.completions().name();
            put(topic, pool, topics.completions().valueSerde().serializer().serialize(topic, new CompletionEvent(event)));
        }
    }

    private void put(String topic, String key, byte[] value) {
        try {
            producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not produce to " + topic, e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
