package io.cronoq.scheduler.testing;

import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Reads a scheduler's whole journal (read_committed, from the start) as a test checks it: every call first reads
 * all that arrived since the last one, then answers over every entry so far, in order per pool.
 */
public final class JournalTail implements AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final KafkaConsumer<String, JournalEntry> consumer;
    private final List<JournalEntry> entries = new ArrayList<>();

    /** A reader in its own consumer group on the test broker. */
    public JournalTail(KafkaBroker broker, Topics topics) {
        consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("journal")),
                topics.journal().keySerde().deserializer(), topics.journal().valueSerde().deserializer());
        consumer.subscribe(List.of(topics.journal().name()));
    }

    /** The journaled events so far (read until the broker has no more for now), in order. */
    public synchronized List<Object> events() {
        ConsumerRecords<String, JournalEntry> batch;
        do {
            batch = consumer.poll(Duration.ofMillis(100));
            batch.forEach(r -> entries.addAll(Journal.entries(r.value())));
        } while (!batch.isEmpty());
        return entries.stream().map(JournalEntry::getEvent).toList();
    }

    /** The journaled events of a type so far, in order. */
    public <T> List<T> events(Class<T> type) {
        return events().stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** The events journaled so far about this task, in order. */
    public List<SpecificRecord> eventsOf(String taskId) {
        List<SpecificRecord> events = new ArrayList<>();
        for (Object e : events()) {
            if (taskId.equals(Journal.taskId(e))) {
                events.add((SpecificRecord) e);
            }
        }
        return events;
    }

    /** The names of the events journaled so far about this task, e.g. {@code TaskSubmitted}. */
    public List<String> typesOf(String taskId) {
        return eventsOf(taskId).stream().map(e -> e.getSchema().getName()).toList();
    }

    /** How a task's attempt ended (the scheduler's decision), once journaled; else {@code null}. */
    public TaskFinished finished(String taskId, int attempt) {
        return events(TaskFinished.class).stream()
                .filter(f -> f.getTaskId().equals(taskId) && f.getAttempt() == attempt).findFirst().orElse(null);
    }

    /** Waits (a minute at most) until the attempt ended and returns how. */
    public TaskFinished awaitFinished(String taskId, int attempt) {
        await().atMost(WAIT).until(() -> finished(taskId, attempt) != null);
        return finished(taskId, attempt);
    }

    /** The result the worker reported for a succeeded attempt, as text; {@code null} when none is journaled. */
    public String result(String taskId, int attempt) {
        return events(AttemptSucceeded.class).stream()
                .filter(s -> s.getTaskId().equals(taskId) && s.getAttempt() == attempt && s.getResult() != null)
                .map(s -> StandardCharsets.UTF_8.decode(s.getResult().duplicate()).toString())
                .findFirst().orElse(null);
    }

    /** Waits (a minute at most) until the worker's failure of the attempt is journaled and returns it. */
    public AttemptFailed awaitFailure(String taskId, int attempt) {
        await().atMost(WAIT).until(() -> failure(taskId, attempt) != null);
        return failure(taskId, attempt);
    }

    private AttemptFailed failure(String taskId, int attempt) {
        return events(AttemptFailed.class).stream()
                .filter(f -> f.getTaskId().equals(taskId) && f.getAttempt() == attempt).findFirst().orElse(null);
    }

    /** The assignments the scheduler journaled for a task so far, in order. */
    public List<AttemptAssigned> assignments(String taskId) {
        return events(AttemptAssigned.class).stream().filter(a -> a.getTaskId().equals(taskId)).toList();
    }

    @Override
    public synchronized void close() {
        consumer.close();
    }
}
