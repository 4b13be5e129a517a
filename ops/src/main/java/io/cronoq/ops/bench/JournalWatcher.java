package io.cronoq.ops.bench;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Follows the journal and counts the tasks whose lifecycle is complete — {@code TaskFinished}
 * SUCCEEDED: submitted, assigned, completed, slot freed — by the time each became visible to a
 * {@code read_committed} reader. Only those entries are decoded (see {@link JournalPeek}).
 */
public final class JournalWatcher implements AutoCloseable {

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
        if (branch != JournalPeek.UNKNOWN && !mayComplete(JournalKind.ofBranch(branch))) {
            return; // told by its bytes alone: not decoded
        }
        JournalEntry entry = Journal.decode(journal, record);
        if (mayComplete(JournalKind.of(entry)) && ((TaskFinished) entry.getEvent()).getState() == TaskState.SUCCEEDED) {
            succeeded.add(receivedNanos);
        }
    }

    /** Whether an entry of this kind can be a task's completed lifecycle: a {@code TaskFinished}, SUCCEEDED or not. */
    private static boolean mayComplete(JournalKind kind) {
        return switch (kind) {
            case TASK_FINISHED -> true;
            case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT, ATTEMPT_STARTED,
                    ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, ATTEMPT_ASSIGNED, TASK_CANCELLED,
                    DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_ACCEPTED, WORKER_REMOVED, ATTEMPT_REVOKED,
                    WORKER_FENCED, REGISTRATION_REJECTED, TASK_FORGOTTEN -> false;
        };
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
