package io.cronoq.agent;

import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A scheduler on the test broker under a unique prefix, plus what a test needs around it: submitting and
 * cancelling tasks, sending raw worker events, the journal as it grows, and worker builders on the same topics.
 */
public final class SchedulerHarness implements AutoCloseable {

    private final KafkaBroker broker;
    private final SchedulerApp app;
    private final Topics topics;
    private final KafkaProducer<String, byte[]> producer;
    private final List<JournalEntry> journal = new CopyOnWriteArrayList<>();
    private final Thread reader;
    private volatile boolean running = true;

    private SchedulerHarness(KafkaBroker broker, SchedulerApp app) {
        this.broker = broker;
        this.app = app;
        this.topics = app.topics();
        this.producer = new KafkaProducer<>(broker.producerProps(), new StringSerializer(), new ByteArraySerializer());
        KafkaConsumer<String, JournalEntry> consumer = new KafkaConsumer<>(
                broker.consumerProps(broker.uniqueName("journal-reader")),
                topics.journal().keySerde().deserializer(), topics.journal().valueSerde().deserializer());
        consumer.subscribe(List.of(topics.journal().name()));
        this.reader = new Thread(() -> {
            try (consumer) {
                while (running) {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> journal.add(r.value()));
                }
            }
        }, "journal-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a scheduler with its own topics, application id and state directory. */
    public static SchedulerHarness start(KafkaBroker broker) throws IOException {
        return start(broker, Credentials.none());
    }

    /** As above, with {@code credentials} checking worker registrations. */
    public static SchedulerHarness start(KafkaBroker broker, Credentials credentials) throws IOException {
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                SchedulerConfig.TOPIC_PREFIX.name(), broker.uniqueName("agent") + ".",
                SchedulerConfig.APPLICATION_ID.name(), broker.uniqueName("scheduler"),
                SchedulerConfig.STATE_DIR.name(), Files.createTempDirectory("cronoq-agent-it").toString(),
                SchedulerConfig.PARTITIONS.name(), "4"));
        return new SchedulerHarness(broker, SchedulerApp.start(config, credentials));
    }

    public String bootstrap() {
        return broker.bootstrapServers();
    }

    public String prefix() {
        return topics.prefix();
    }

    /** A worker builder on this scheduler's topics, heartbeating every second. */
    public CronoqWorker.Builder worker(String id, String pool) {
        return CronoqWorker.builder().bootstrap(bootstrap()).topicPrefix(prefix()).id(id).pool(pool)
                .heartbeatInterval(Duration.ofSeconds(1)).registrationTimeout(Duration.ofSeconds(60));
    }

    /** Embedded executors on this scheduler's topics. */
    public EmbeddedExecutors.Builder embedded(String name) {
        return EmbeddedExecutors.builder().bootstrap(bootstrap()).topicPrefix(prefix()).name(name)
                .heartbeatInterval(Duration.ofSeconds(1)).registrationTimeout(Duration.ofSeconds(60));
    }

    public void submit(String taskId, String pool, Map<String, String> labels, String payload) {
        submit(TaskSubmitted.newBuilder().setTaskId(taskId).setPool(pool).setLabels(labels)
                .setPayload(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)))
                .setSubmittedAt(Instant.now()).build());
    }

    /** Submits a task as given (keyed by its pool). */
    public void submit(TaskSubmitted task) {
        send(topics.submissions().name(), task.getPool(),
                topics.submissions().valueSerde().serializer().serialize(topics.submissions().name(),
                        new SubmissionEvent(task)));
    }

    public void cancel(String taskId, String pool) {
        TaskCancelRequested cancel = TaskCancelRequested.newBuilder().setTaskId(taskId).setPool(pool)
                .setReason("test").setRequestedAt(Instant.now()).build();
        send(topics.submissions().name(), pool,
                topics.submissions().valueSerde().serializer().serialize(topics.submissions().name(),
                        new SubmissionEvent(cancel)));
    }

    /** Sends a worker event (e.g. a twin's registration) as a worker would. */
    public void sendWorkerEvent(String pool, SpecificRecord event) {
        send(topics.workers().name(), pool,
                topics.workers().valueSerde().serializer().serialize(topics.workers().name(), new WorkerEvent(event)));
    }

    private void send(String topic, String key, byte[] value) {
        try {
            producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not send to " + topic, e);
        }
    }

    /** The journal entries read so far, in order. */
    public List<Object> journal() {
        return journal.stream().map(JournalEntry::getEvent).toList();
    }

    /** The journaled events of a type, in order. */
    public <T> List<T> journaled(Class<T> type) {
        return journal().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Waits until the attempt ended and returns how (the scheduler's decision). */
    public TaskFinished awaitFinished(String taskId, int attempt) {
        await().atMost(Duration.ofSeconds(60)).until(() -> finished(taskId, attempt) != null);
        return finished(taskId, attempt);
    }

    public TaskFinished finished(String taskId, int attempt) {
        return journaled(TaskFinished.class).stream()
                .filter(f -> f.getTaskId().equals(taskId) && f.getAttempt() == attempt).findFirst().orElse(null);
    }

    /** The result the worker reported for a succeeded attempt, as text. */
    public String result(String taskId, int attempt) {
        return journaled(AttemptSucceeded.class).stream()
                .filter(s -> s.getTaskId().equals(taskId) && s.getAttempt() == attempt && s.getResult() != null)
                .map(s -> StandardCharsets.UTF_8.decode(s.getResult().duplicate()).toString())
                .findFirst().orElse(null);
    }

    /** The failure the worker reported for an attempt, once journaled. */
    public AttemptFailed awaitFailure(String taskId, int attempt) {
        await().atMost(Duration.ofSeconds(60)).until(() -> failure(taskId, attempt) != null);
        return failure(taskId, attempt);
    }

    private AttemptFailed failure(String taskId, int attempt) {
        return journaled(AttemptFailed.class).stream()
                .filter(f -> f.getTaskId().equals(taskId) && f.getAttempt() == attempt).findFirst().orElse(null);
    }

    /** The assignments the scheduler made for a task, in order. */
    public List<AttemptAssigned> assignments(String taskId) {
        return journaled(AttemptAssigned.class).stream().filter(a -> a.getTaskId().equals(taskId)).toList();
    }

    @Override
    public void close() {
        running = false;
        try {
            reader.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
        app.close();
    }
}
