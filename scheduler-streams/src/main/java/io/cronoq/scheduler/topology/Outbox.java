package io.cronoq.scheduler.topology;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.Record;

/**
 * What the scheduler writes to the journal (key: pool) and tells the workers (key: worker id),
 * gathered into records and handed to the sinks in each key's order. Per commit, a key's record
 * holds everything since the stream task's last commit ({@link #commit}): a worker reads its
 * assignments only once the transaction that wrote them commits, and a journal reader reads
 * committed records only, so gathering delays nothing anyone sees and writes far fewer records.
 * Per input ({@link #endInput}) or per entry, a record holds less, for readers of earlier releases.
 * A record never outgrows {@link RecordBudget#RECORD_BYTES} unless one entry does: the entries go
 * on in the key's next record.
 *
 * <p>A journal entry caused by another input than the entry before it in its record carries that
 * input's times ({@code at}, and {@code heardAt} where it differs); the others share their
 * predecessor's. Every record is stamped (its Kafka timestamp) with the latest input time it
 * holds, so a reader that looks up the offset for a time at or before its own submission finds
 * every record holding an entry of that time or later.
 */
final class Outbox {

    /**
     * How many bytes (estimated) the open records may hold before the scheduler asks Kafka Streams to
     * commit early: the producer's own buffer no longer bounds what waits for a commit.
     */
    static final long COMMIT_AT_BYTES = 8L * 1024 * 1024;

    /** Where the finished records go, keyed by pool and by worker id. */
    interface Sinks {
        void journal(Record<String, JournalEntry> record);

        void assignments(Record<String, AssignmentEvent> record);
    }

    /** One key's record being filled: its estimated bytes and the latest input time it holds. */
    private static final class Open<R> {
        final R record;
        long bytes;
        long latest;
        /** For a journal record, the times of its last entry. */
        Instant at;
        Instant heardAt;

        Open(R record, long bytes, long latest) {
            this.record = record;
            this.bytes = bytes;
            this.latest = latest;
        }
    }

    /** The records being filled, one per key, in the order the keys were first written. */
    private static final class Filling<R> {
        private final Map<String, Open<R>> open = new LinkedHashMap<>();
        private final Consumer<Record<String, R>> sink;
        /** The estimated bytes of the open records. */
        long held;

        Filling(Consumer<Record<String, R>> sink) {
            this.sink = sink;
        }

        /**
         * The key's record with room for {@code bytes} more, or null when a new one must be
         * started: none is open, it is full (and is sent now), or every entry goes alone.
         */
        Open<R> room(String key, long bytes, boolean alone) {
            Open<R> record = open.get(key);
            if (record != null && (alone || record.bytes + bytes > RecordBudget.RECORD_BYTES)) {
                send(key, open.remove(key));
                return null;
            }
            return record;
        }

        Open<R> start(String key, R record, long bytes, long at) {
            held += bytes;
            Open<R> started = new Open<>(record, bytes, at);
            open.put(key, started);
            return started;
        }

        void add(Open<R> record, long bytes, long at) {
            held += bytes;
            record.bytes += bytes;
            record.latest = Math.max(record.latest, at);
        }

        void sendAll() {
            for (Iterator<Map.Entry<String, Open<R>>> it = open.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Open<R>> e = it.next();
                it.remove();
                send(e.getKey(), e.getValue());
            }
        }

        void clear() {
            open.clear();
            held = 0;
        }

        private void send(String key, Open<R> record) {
            held -= record.bytes;
            sink.accept(new Record<>(key, record.record, record.latest));
        }
    }

    private final JournalRecords journalRecords;
    private final AssignmentRecords assignmentRecords;
    private final Filling<JournalEntry> journal;
    private final Filling<AssignmentEvent> assignments;

    Outbox(JournalRecords journalRecords, AssignmentRecords assignmentRecords, Sinks sinks) {
        this.journalRecords = journalRecords;
        this.assignmentRecords = assignmentRecords;
        this.journal = new Filling<>(sinks::journal);
        this.assignments = new Filling<>(sinks::assignments);
    }

    /**
     * Journals an entry of {@code pool} caused by an input of event time {@code at} that the
     * scheduler heard at {@code heardAt} (null when that is {@code at}).
     */
    void journal(String pool, Instant at, Instant heardAt, SpecificRecord event, String cause) {
        long bytes = RecordBudget.bytesOf(event, cause);
        long time = at.toEpochMilli();
        Open<JournalEntry> record = journal.room(pool, bytes, journalRecords == JournalRecords.PER_ENTRY);
        if (record == null) {
            record = journal.start(pool, new JournalEntry(pool, at, event, cause, new ArrayList<>(), heardAt), bytes, time);
        } else {
            boolean sameInput = at.equals(record.at) && Objects.equals(heardAt, record.heardAt);
            record.record.getMore().add(sameInput ? new JournalItem(event, cause, null, null)
                    : new JournalItem(event, cause, at, heardAt));
            journal.add(record, bytes, time);
        }
        record.at = at;
        record.heardAt = heardAt;
    }

    /** Tells {@code worker} an event decided on an input of event time {@code timestamp}. */
    void tell(String worker, SpecificRecord event, long timestamp) {
        long bytes = RecordBudget.bytesOf(event, null);
        Open<AssignmentEvent> record = assignments.room(worker, bytes,
                assignmentRecords == AssignmentRecords.PER_EVENT);
        if (record == null) {
            assignments.start(worker, new AssignmentEvent(event, new ArrayList<>()), bytes, timestamp);
        } else {
            record.record.getMore().add(event);
            assignments.add(record, bytes, timestamp);
        }
    }

    /** An input or a tick is done: what is not gathered per commit is sent. */
    void endInput() {
        if (journalRecords != JournalRecords.PER_COMMIT) {
            journal.sendAll();
        }
        if (assignmentRecords != AssignmentRecords.PER_COMMIT) {
            assignments.sendAll();
        }
    }

    /** The stream task commits: every record still open is sent. */
    void commit() {
        assignments.sendAll();
        journal.sendAll();
    }

    /** The estimated bytes of the records not sent yet. */
    long heldBytes() {
        return journal.held + assignments.held;
    }

    /** Forgets the open records without sending them: the transaction that held their inputs is aborted. */
    void discard() {
        assignments.clear();
        journal.clear();
    }
}
