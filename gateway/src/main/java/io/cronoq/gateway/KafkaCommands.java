package io.cronoq.gateway;

import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerEvent;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Commands} on a Kafka producer: idempotent, {@code acks=all}, keyed by pool (the scheduler's
 * fast path), each send awaited so that a 202 means the event is on every in-sync replica.
 */
final class KafkaCommands implements Commands, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaCommands.class);

    private final KafkaProducer<String, byte[]> producer;
    private final Topics topics;
    private final Duration timeout;

    KafkaCommands(Map<String, Object> kafkaConfig, Topics topics, Duration timeout) {
        // The configured client id names the gateway's producer when one is given.
        Object clientId = kafkaConfig.getOrDefault(ProducerConfig.CLIENT_ID_CONFIG, "cronoq-gateway");
        Map<String, Object> config = KafkaClients.durableProducer(kafkaConfig, clientId.toString());
        // Each send is one request's answer, awaited: sent at once, and blocked, delivered or answered
        // within the request's timeout.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(timeout.toMillis(), 1_000));
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        this.producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
        this.topics = topics;
        this.timeout = timeout;
    }

    /** The number of partitions of the submissions topic, from the producer's metadata. */
    int inputPartitions() {
        return producer.partitionsFor(topics.submissions().name()).size();
    }

    @Override
    public void submit(TaskSubmitted task) {
        publish(topics.submissions(), task.getPool(), new SubmissionEvent(task), "submission of task " + task.getTaskId());
    }

    @Override
    public void submitAll(java.util.List<TaskSubmitted> tasks) {
        String topic = topics.submissions().name();
        var serializer = topics.submissions().valueSerde().serializer();
        java.util.List<ProducerRecord<String, byte[]>> records = new java.util.ArrayList<>(tasks.size());
        for (TaskSubmitted task : tasks) {
            records.add(new ProducerRecord<>(topic, task.getPool(), serializer.serialize(topic, new SubmissionEvent(task))));
        }
        send(records, tasks.size() + " tasks of workflow " + (tasks.isEmpty() ? "" : tasks.get(0).getWorkflow()),
                "some may have been accepted: send the same workflow again, which adds only what is missing");
    }

    @Override
    public void submitGang(GangSubmitted gang) {
        publish(topics.submissions(), gang.getPool(), new SubmissionEvent(gang), "submission of gang " + gang.getGangId()
                + " (" + gang.getMembers().size() + " members)");
    }

    @Override
    public void cancel(TaskCancelRequested cancel) {
        publish(topics.submissions(), cancel.getPool(), new SubmissionEvent(cancel),
                "cancel of task " + cancel.getTaskId());
    }

    @Override
    public void drain(WorkerDraining drain) {
        publish(topics.workers(), drain.getPool(), new WorkerEvent(drain), "drain of worker " + drain.getWorkerId());
    }

    @Override
    public void share(SharingPolicySet policy) {
        String what = "sharing policy of " + (policy.getTenant() == null ? "" : "tenant " + policy.getTenant() + " in ")
                + "pool " + policy.getPool();
        publish(topics.submissions(), policy.getPool(), new SubmissionEvent(policy), what);
    }

    @Override
    public void limit(LimitSet limit) {
        String what = (limit.getKind() == LimitKind.CONCURRENCY_KEY ? "limit of concurrency key " : "rate limit ")
                + limit.getName() + " of pool " + limit.getPool();
        publish(topics.submissions(), limit.getPool(), new SubmissionEvent(limit), what);
    }

    /** Writes {@code event} to {@code topic} keyed by its pool, serialized as the topic's values are, and waits. */
    private <V> void publish(Topic<String, V> topic, String pool, V event, String what) {
        send(topic.name(), pool, topic.valueSerde().serializer().serialize(topic.name(), event), what);
    }

    private void send(String topic, String pool, byte[] value, String what) {
        send(java.util.List.of(new ProducerRecord<>(topic, pool, value)), what, "nothing was accepted, retry");
    }

    /**
     * Sends the records, all before any is awaited (one pool's stay in order on its partition), and waits for every
     * one within the timeout; {@code unsent} says, on a failure, what the caller may have left behind.
     */
    private void send(java.util.List<ProducerRecord<String, byte[]>> records, String what, String unsent) {
        String topic = records.get(0).topic();
        try {
            java.util.List<java.util.concurrent.Future<?>> sent = new java.util.ArrayList<>(records.size());
            for (ProducerRecord<String, byte[]> record : records) {
                sent.add(producer.send(record));
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            log.warn("Could not write the {} to {}: {}", what, topic, cause.toString());
            throw ApiException.unavailable("could not write the " + what + " to " + topic + " (" + cause + "); "
                    + unsent, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.unavailable("interrupted while writing the " + what, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
