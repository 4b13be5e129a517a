package io.cronoq.bench;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.events.Journal;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Follows the journal and counts the tasks whose lifecycle is complete — {@code TaskFinished}
 * SUCCEEDED: submitted, assigned, completed, slot freed — by the time each became visible to a
 * {@code read_committed} reader, and can tell a listener when the scheduler heard the input of each
 * assignment. Records are not decoded, only walked (see {@link JournalPeek}).
 */
public final class JournalWatcher implements AutoCloseable {

    private final Topic<String, JournalEntry> journal;
    private final JournalPeek peek;
    private volatile Window succeeded = new Window();
    private volatile JournalPeek.AssignmentListener assignments;
    private final TopicTail tail;

    private JournalWatcher(String bootstrap, Topic<String, JournalEntry> journal, SchemaRegistry registry) {
        this.journal = journal;
        AvroSerde<?> serde = (AvroSerde<?>) journal.valueSerde();
        this.peek = new JournalPeek(registry.register(serde.subject(journal.name()), serde.schema()));
        this.tail = TopicTail.start(bootstrap, journal.name(), this::onRecord);
    }

    /** Starts following {@code journal} from its beginning. */
    public static JournalWatcher start(String bootstrap, Topic<String, JournalEntry> journal, SchemaRegistry registry) {
        return new JournalWatcher(bootstrap, journal, registry);
    }

    private void onRecord(ConsumerRecord<byte[], byte[]> record, long receivedNanos) {
        JournalPeek.AssignmentListener listener = assignments;
        int succeededHere = peek.succeeded(record.value(), listener);
        if (succeededHere == JournalPeek.UNKNOWN) {
            succeededHere = 0;
            for (JournalEntry entry : Journal.entries(journal, record)) {
                if (entry.getEvent() instanceof TaskFinished f && f.getState() == TaskState.SUCCEEDED) {
                    succeededHere++;
                } else if (entry.getEvent() instanceof AttemptAssigned a && listener != null) {
                    listener.assigned(a.getTaskId(), Journal.heardAt(entry).toEpochMilli());
                }
            }
        }
        for (int i = 0; i < succeededHere; i++) {
            succeeded.add(receivedNanos);
        }
    }

    /** From now on tells {@code listener} each assignment's task and when the scheduler heard its input (null: none). */
    public void watchAssignments(JournalPeek.AssignmentListener listener) {
        assignments = listener;
    }

    /** Tasks that finished SUCCEEDED since the start or the last {@link #reset()}. */
    public Window succeeded() {
        return succeeded;
    }

    /** Starts counting afresh. */
    public void reset() {
        succeeded = new Window();
    }

    @Override
    public void close() {
        tail.close();
    }
}
