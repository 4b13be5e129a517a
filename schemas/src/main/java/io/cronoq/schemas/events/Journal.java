package io.cronoq.schemas.events;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.WorkerFenced;
import io.cronoq.schemas.Topic;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What every reader of the journal reads the same way, whatever it decides per {@link JournalKind}:
 * the entries a record holds, the task, worker and attempt an event names, the name of an attempt,
 * and a journal record decoded with the journal topic's serde.
 *
 * <p>A journal record holds, in order, the entries its pool's inputs and ticks caused between two
 * commits of the scheduler (or, set so, what one input caused): the first in the record's own
 * fields, the rest in {@code more}, all of the record's pool, each further one with the times of
 * the entry before it unless it carries its own (it was caused by another input). Readers read
 * entries, never records: {@link #entries} turns a record into its entries, each a
 * {@code JournalEntry} whose {@code more} is empty, so a record written before records carried
 * several entries is simply a record of one.
 */
public final class Journal {

    /**
     * The attempt an event is about: its task, its number, the worker it ran on (null when the event
     * does not say) and the generation of that worker the event names (null when it names none).
     */
    public record Attempt(String taskId, int attempt, String workerId, Long generation) {

        /** The attempt's name, {@link Journal#attemptKey}. */
        public String key() {
            return attemptKey(taskId, attempt);
        }
    }

    private Journal() {}

    /** One entry of {@code pool} at {@code at}: a record of one. */
    public static JournalEntry entry(String pool, Instant at, Object event, String cause) {
        return entry(pool, at, null, event, cause);
    }

    /**
     * One entry of {@code pool} at {@code at}, caused by an input the scheduler heard at
     * {@code heardAt} on its own clock (null when that is {@code at}): a record of one.
     */
    public static JournalEntry entry(String pool, Instant at, Instant heardAt, Object event, String cause) {
        return new JournalEntry(pool, at, event, cause, List.of(), heardAt);
    }

    /** When the scheduler heard the input that caused the entry, on its own clock: its {@code heardAt}, else its {@code at}. */
    public static Instant heardAt(JournalEntry entry) {
        return entry.getHeardAt() != null ? entry.getHeardAt() : entry.getAt();
    }

    /**
     * The entries of one record, in order, each with the record's pool, its own {@code at} and
     * {@code heardAt} and an empty {@code more}. A further entry without an {@code at} of its own
     * has the times of the entry before it; one with it has them from its own fields. A record of
     * one entry is returned as it is.
     */
    public static List<JournalEntry> entries(JournalEntry record) {
        List<JournalItem> more = record.getMore();
        if (more == null || more.isEmpty()) {
            return List.of(record);
        }
        List<JournalEntry> entries = new ArrayList<>(more.size() + 1);
        Instant at = record.getAt();
        Instant heardAt = record.getHeardAt();
        entries.add(entry(record.getPool(), at, heardAt, record.getEvent(), record.getCause()));
        for (JournalItem item : more) {
            if (item.getAt() != null) { // caused by another input than the entry before it
                at = item.getAt();
                heardAt = item.getHeardAt();
            }
            entries.add(entry(record.getPool(), at, heardAt, item.getEvent(), item.getCause()));
        }
        return entries;
    }

    /** The entries of a journal record read with the journal topic's serde, in order. */
    public static List<JournalEntry> entries(Topic<?, JournalEntry> journal, ConsumerRecord<?, byte[]> record) {
        return entries(decode(journal, record));
    }

    /** The name of attempt {@code attempt} of a task, "task#attempt": how readers key attempts and a worker's running ones. */
    public static String attemptKey(String taskId, int attempt) {
        return taskId + "#" + attempt;
    }

    /**
     * The attempt a journal event is about, or null for an event about no single attempt (a task's
     * submission, wait or cancellation, a worker's registration or departure).
     *
     * @throws IllegalArgumentException for an object the journal's union cannot hold
     */
    public static Attempt attemptOf(Object event) {
        return switch (JournalKind.of(event)) {
            // The worker's reports and the scheduler's assignment and revocation name all four alike.
            case ATTEMPT_STARTED, ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, ATTEMPT_ASSIGNED, ATTEMPT_REVOKED ->
                    new Attempt((String) field(event, "taskId"), (Integer) field(event, "attempt"),
                            (String) field(event, "workerId"), (Long) field(event, "generation"));
            case TASK_FINISHED -> {
                TaskFinished f = (TaskFinished) event;
                yield new Attempt(f.getTaskId(), f.getAttempt(), f.getWorkerId(), null);
            }
            case WORKER_FENCED -> {
                WorkerFenced f = (WorkerFenced) event;
                yield f.getTaskId() == null || f.getAttempt() == null ? null
                        : new Attempt(f.getTaskId(), f.getAttempt(), f.getWorkerId(), f.getStaleGeneration());
            }
            case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT, TASK_WAITING,
                    TASK_CANCELLED, DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_ACCEPTED, WORKER_REMOVED,
                    REGISTRATION_REJECTED, TASK_FORGOTTEN, SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED, PARENT_WATCHED,
                    PARENT_ENDED, TASK_BLOCKED -> null;
        };
    }

    /**
     * The task a journal event names (its {@code taskId}), or null for one that names none (a
     * worker's event, an input rejected before its task was known).
     *
     * @throws IllegalArgumentException for an object the journal's union cannot hold
     */
    public static String taskId(Object event) {
        return switch (JournalKind.of(event)) {
            // Journaled in the pool of the task they are about: a watch in its parent's, an end in its child's.
            case PARENT_WATCHED -> ((ParentWatched) event).getParentId();
            case PARENT_ENDED -> ((ParentEnded) event).getChildId();
            default -> (String) field(event, "taskId");
        };
    }

    /**
     * The worker a journal event names (its {@code workerId}), or null for one that names none.
     *
     * @throws IllegalArgumentException for an object the journal's union cannot hold
     */
    public static String workerId(Object event) {
        JournalKind.of(event);
        return (String) field(event, "workerId");
    }

    /**
     * A journal record's value decoded with the journal topic's serde.
     *
     * @throws RuntimeException (the serde's) when the bytes are no journal entry this schema can read
     */
    public static JournalEntry decode(Topic<?, JournalEntry> journal, ConsumerRecord<?, byte[]> record) {
        return journal.valueSerde().deserializer().deserialize(record.topic(), record.value());
    }

    /** A field of an event by name, or null when its schema has no such field. */
    private static Object field(Object event, String name) {
        SpecificRecord record = (SpecificRecord) event;
        Schema.Field field = record.getSchema().getField(name);
        return field == null ? null : record.get(field.pos());
    }
}
