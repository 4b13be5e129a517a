package io.cronoq.schemas.codec;

import static io.cronoq.schemas.codec.Binary.instant;
import static io.cronoq.schemas.codec.Binary.optionalInstant;
import static io.cronoq.schemas.codec.Binary.optionalString;
import static io.cronoq.schemas.codec.Binary.present;
import static io.cronoq.schemas.codec.Binary.strings;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import java.io.IOException;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * The task record, the scheduler's most written and read value (store {@code cronoq-tasks}): the submitted task,
 * its state, its place in line and its attempts, written and read field by field.
 */
public final class TaskRecordCodec implements RecordCodec<TaskRecord> {

    /** The fingerprint of the TaskRecord schema this codec writes; a changed schema fails a test until it follows. */
    static final long PINNED = 0x1e8dc96b68480cd1L;
    private static final TaskState[] STATES = TaskState.values();
    private static final AttemptOutcome[] OUTCOMES = AttemptOutcome.values();

    @Override
    public Class<TaskRecord> type() {
        return TaskRecord.class;
    }

    @Override
    public long pinned() {
        return PINNED;
    }

    @Override
    public void write(TaskRecord r, Encoder out) throws IOException {
        TaskSubmittedPart.INSTANCE.write(r.getTask(), out);
        out.writeEnum(r.getState().ordinal());
        out.writeLong(r.getSequence());
        Binary.array(out, r.getAttempts(), ATTEMPT);
        optionalString(out, r.getWaitingReason());
        optionalInstant(out, r.getWaitingSince());
        instant(out, r.getUpdatedAt());
        out.writeLong(r.getRank());
        optionalInstant(out, r.getTimerAt());
        optionalInstant(out, r.getQueuedAt());
        out.writeInt(r.getUnmetParents());
        out.writeInt(r.getChildren());
    }

    @Override
    public TaskRecord read(Decoder in) throws IOException {
        return new TaskRecord(TaskSubmittedPart.INSTANCE.read(in), Binary.symbol(in, STATES), in.readLong(),
                Binary.array(in, ATTEMPT), optionalString(in), optionalInstant(in), instant(in), in.readLong(),
                optionalInstant(in), optionalInstant(in), in.readInt(), in.readInt());
    }

    private static final Part<AttemptRecord> ATTEMPT = new Part<>() {
        @Override
        public void write(AttemptRecord a, Encoder out) throws IOException {
            out.writeInt(a.getAttempt());
            out.writeString(a.getWorkerId());
            out.writeLong(a.getGeneration());
            strings(out, a.getGroup());
            instant(out, a.getAssignedAt());
            optionalInstant(out, a.getStartedAt());
            optionalInstant(out, a.getFinishedAt());
            AttemptOutcome outcome = a.getOutcome();
            if (present(out, outcome)) {
                out.writeEnum(outcome.ordinal());
            }
            optionalString(out, a.getError());
        }

        @Override
        public AttemptRecord read(Decoder in) throws IOException {
            return new AttemptRecord(in.readInt(), in.readString(), in.readLong(), strings(in), instant(in),
                    optionalInstant(in), optionalInstant(in), present(in) ? Binary.symbol(in, OUTCOMES) : null,
                    optionalString(in));
        }
    };
}
