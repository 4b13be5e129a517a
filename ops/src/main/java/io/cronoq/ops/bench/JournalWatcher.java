package io.cronoq.ops.bench;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Follows the journal and counts the tasks whose lifecycle is complete — {@code TaskFinished}
 * SUCCEEDED: submitted, assigned, completed, slot freed — by the time each became visible to a
 * {@code read_committed} reader. Only those entries are decoded (see {@link JournalPeek}).
 */
public final class JournalWatcher implements AutoCloseable {

    private static final int TASK_FINISHED = JournalPeek.branchOf(TaskFinished.getClassSchema().getFullName());

    private final Topic<String, JournalEntry> journal;
    private final JournalPeek peek;
    private volatile Window succeeded = new Window();
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
        int branch = peek.branch(record.value());
        if (branch != TASK_FINISHED && branch != JournalPeek.UNKNOWN) {
            return;
        }
        JournalEntry entry = journal.valueSerde().deserializer().deserialize(journal.name(), record.value());
        if (entry.getEvent() instanceof TaskFinished f && f.getState() == TaskState.SUCCEEDED) {
            succeeded.add(receivedNanos);
        }
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
