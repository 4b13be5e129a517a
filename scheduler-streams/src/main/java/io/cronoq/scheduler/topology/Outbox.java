package io.cronoq.scheduler.topology;

import io.cronoq.schemas.codec.GatheredBodies;
import io.cronoq.schemas.codec.GatheredBodies.Body;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
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
 *
 * <p>Records are written as they are filled ({@link GatheredBodies}): the sinks get each record's
 * Avro body (a JournalEntry, an AssignmentEvent), which their serializer puts the wire header before.
 */
final class Outbox {

    /**
     * How many bytes (estimated) the open records may hold before the scheduler asks Kafka Streams to
     * commit early: the producer's own buffer no longer bounds what waits for a commit.
     */
    static final long COMMIT_AT_BYTES = 8L * 1024 * 1024;

    /**
     * Where the finished records go, keyed by pool and by worker id: the Avro body of a JournalEntry
     * and of an AssignmentEvent.
     */
    interface Sinks {
        void journal(Record<String, byte[]> record);

        void assignments(Record<String, byte[]> record);
    }

    /** One key's record being filled: its estimated bytes and the latest input time it holds. */
    private static final class Open {
        final Body record;
        long bytes;
        long latest;
        /** For a journal record, the times of its last entry. */
        Instant at;
        Instant heardAt;

        Open(Body record, long bytes, long latest) {
            this.record = record;
            this.bytes = bytes;
            this.latest = latest;
        }
    }

    /** The records being filled, one per key, in the order the keys were first written. */
    private static final class Filling {
        private final Map<String, Open> open = new LinkedHashMap<>();
        private final Function<Body, byte[]> finish;
        private final Consumer<Record<String, byte[]>> sink;
        /** The estimated bytes of the open records. */
        long held;

        Filling(Function<Body, byte[]> finish, Consumer<Record<String, byte[]>> sink) {
            this.finish = finish;
            this.sink = sink;
        }

        /**
         * The key's record with room for {@code bytes} more, or null when a new one must be
         * started: none is open, it is full (and is sent now), or every entry goes alone.
         */
        Open room(String key, long bytes, boolean alone) {
            Open record = open.get(key);
            if (record != null && (alone || record.bytes + bytes > RecordBudget.RECORD_BYTES)) {
                send(key, open.remove(key));
                return null;
            }
            return record;
        }

        Open start(String key, Body record, long bytes, long at) {
            held += bytes;
            Open started = new Open(record, bytes, at);
            open.put(key, started);
            return started;
        }

        void add(Open record, long bytes, long at) {
            held += bytes;
            record.bytes += bytes;
            record.latest = Math.max(record.latest, at);
        }

        void sendAll() {
            for (Iterator<Map.Entry<String, Open>> it = open.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<String, Open> e = it.next();
                it.remove();
                send(e.getKey(), e.getValue());
            }
        }

        void clear() {
            open.clear();
            held = 0;
        }

        private void send(String key, Open record) {
            held -= record.bytes;
            sink.accept(new Record<>(key, finish.apply(record.record), record.latest));
        }
    }

    private final JournalRecords journalRecords;
    private final AssignmentRecords assignmentRecords;
    private final GatheredBodies bodies = new GatheredBodies();
    private final Filling journal;
    private final Filling assignments;

    Outbox(JournalRecords journalRecords, AssignmentRecords assignmentRecords, Sinks sinks) {
        this.journalRecords = journalRecords;
        this.assignmentRecords = assignmentRecords;
        this.journal = new Filling(bodies::finishJournal, sinks::journal);
        this.assignments = new Filling(bodies::finishAssignments, sinks::assignments);
    }

    /**
     * Journals an entry of {@code pool} caused by an input of event time {@code at} that the
     * scheduler heard at {@code heardAt} (null when that is {@code at}).
     */
    void journal(String pool, Instant at, Instant heardAt, SpecificRecord event, String cause) {
        long bytes = RecordBudget.bytesOf(event, cause);
        long time = at.toEpochMilli();
        Open record = journal.room(pool, bytes, journalRecords == JournalRecords.PER_ENTRY);
        if (record == null) {
            record = journal.start(pool, bodies.journal(pool, at, event, cause, heardAt), bytes, time);
        } else {
            boolean sameInput = at.equals(record.at) && Objects.equals(heardAt, record.heardAt);
            bodies.journalItem(record.record, event, cause, sameInput ? null : at, sameInput ? null : heardAt);
            journal.add(record, bytes, time);
        }
        record.at = at;
        record.heardAt = heardAt;
    }

    /** Tells {@code worker} an event decided on an input of event time {@code timestamp}. */
    void tell(String worker, SpecificRecord event, long timestamp) {
        long bytes = RecordBudget.bytesOf(event, null);
        Open record = assignments.room(worker, bytes, assignmentRecords == AssignmentRecords.PER_EVENT);
        if (record == null) {
            assignments.start(worker, bodies.assignments(event), bytes, timestamp);
        } else {
            bodies.assignment(record.record, event);
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
