package io.cronoq.schemas.codec;

import static io.cronoq.schemas.codec.Binary.instant;
import static io.cronoq.schemas.codec.Binary.optionalBytes;
import static io.cronoq.schemas.codec.Binary.optionalInstant;
import static io.cronoq.schemas.codec.Binary.optionalLong;
import static io.cronoq.schemas.codec.Binary.optionalString;
import static io.cronoq.schemas.codec.Binary.strings;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.GangAssignment;
import io.cronoq.events.GangPeer;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * The events every task passes through, written by hand inside the unions of journal entries and assignments:
 * a submission, a wait, an assignment, a start, a success or failure, the finish. The rarer events of those
 * unions are left to Avro.
 */
final class EventParts {

    private EventParts() {
    }

    private static final TaskState[] STATES = TaskState.values();
    private static final AttemptOutcome[] OUTCOMES = AttemptOutcome.values();

    /** The hand-written parts by class: a union of records looks its branches up here. */
    static Map<Class<?>, Part<?>> byClass() {
        return Map.of(
                io.cronoq.events.TaskSubmitted.class, TaskSubmittedPart.INSTANCE,
                AttemptAssigned.class, ASSIGNED,
                AttemptStarted.class, STARTED,
                AttemptSucceeded.class, SUCCEEDED,
                AttemptFailed.class, FAILED,
                TaskFinished.class, FINISHED,
                TaskWaiting.class, WAITING);
    }

    static final Part<AttemptAssigned> ASSIGNED = new Part<>() {
        @Override
        public void write(AttemptAssigned a, Encoder out) throws IOException {
            out.writeString(a.getTaskId());
            out.writeString(a.getPool());
            out.writeInt(a.getAttempt());
            out.writeString(a.getWorkerId());
            out.writeLong(a.getGeneration());
            strings(out, a.getGroup());
            out.writeBytes(a.getPayload());
            optionalInstant(out, a.getDeadline());
            optionalLong(out, a.getTimeoutMs());
            instant(out, a.getAssignedAt());
            optionalInstant(out, a.getStartAt());
            GangAssignment gang = a.getGang();
            if (Binary.present(out, gang)) {
                GANG.write(gang, out);
            }
            Binary.byteMap(out, a.getParentResults());
        }

        @Override
        public AttemptAssigned read(Decoder in) throws IOException {
            return new AttemptAssigned(in.readString(), in.readString(), in.readInt(), in.readString(), in.readLong(),
                    strings(in), in.readBytes(null), optionalInstant(in), optionalLong(in), instant(in),
                    optionalInstant(in), Binary.present(in) ? GANG.read(in) : null, Binary.byteMap(in));
        }
    };

    /** The gang of an assignment: its id, size, the member's rank, and every member's worker and address. */
    static final Part<GangAssignment> GANG = new Part<>() {
        private final Part<GangPeer> peer = new Part<>() {
            @Override
            public void write(GangPeer p, Encoder out) throws IOException {
                out.writeString(p.getWorkerId());
                optionalString(out, p.getAddress());
            }

            @Override
            public GangPeer read(Decoder in) throws IOException {
                return new GangPeer(in.readString(), optionalString(in));
            }
        };

        @Override
        public void write(GangAssignment g, Encoder out) throws IOException {
            out.writeString(g.getGangId());
            out.writeInt(g.getSize());
            out.writeInt(g.getRank());
            Binary.array(out, g.getPeers(), peer);
        }

        @Override
        public GangAssignment read(Decoder in) throws IOException {
            return new GangAssignment(in.readString(), in.readInt(), in.readInt(), Binary.array(in, peer));
        }
    };

    static final Part<AttemptStarted> STARTED = new Part<>() {
        @Override
        public void write(AttemptStarted a, Encoder out) throws IOException {
            out.writeString(a.getTaskId());
            out.writeString(a.getPool());
            out.writeInt(a.getAttempt());
            out.writeString(a.getWorkerId());
            out.writeLong(a.getGeneration());
            instant(out, a.getAt());
        }

        @Override
        public AttemptStarted read(Decoder in) throws IOException {
            return new AttemptStarted(in.readString(), in.readString(), in.readInt(), in.readString(), in.readLong(),
                    instant(in));
        }
    };

    static final Part<AttemptSucceeded> SUCCEEDED = new Part<>() {
        @Override
        public void write(AttemptSucceeded a, Encoder out) throws IOException {
            out.writeString(a.getTaskId());
            out.writeString(a.getPool());
            out.writeInt(a.getAttempt());
            out.writeString(a.getWorkerId());
            out.writeLong(a.getGeneration());
            instant(out, a.getAt());
            optionalBytes(out, a.getResult());
        }

        @Override
        public AttemptSucceeded read(Decoder in) throws IOException {
            return new AttemptSucceeded(in.readString(), in.readString(), in.readInt(), in.readString(), in.readLong(),
                    instant(in), optionalBytes(in));
        }
    };

    static final Part<AttemptFailed> FAILED = new Part<>() {
        @Override
        public void write(AttemptFailed a, Encoder out) throws IOException {
            out.writeString(a.getTaskId());
            out.writeString(a.getPool());
            out.writeInt(a.getAttempt());
            out.writeString(a.getWorkerId());
            out.writeLong(a.getGeneration());
            instant(out, a.getAt());
            out.writeString(a.getError());
            out.writeBoolean(a.getRetryable());
        }

        @Override
        public AttemptFailed read(Decoder in) throws IOException {
            return new AttemptFailed(in.readString(), in.readString(), in.readInt(), in.readString(), in.readLong(),
                    instant(in), in.readString(), in.readBoolean());
        }
    };

    static final Part<TaskFinished> FINISHED = new Part<>() {
        @Override
        public void write(TaskFinished f, Encoder out) throws IOException {
            out.writeString(f.getTaskId());
            out.writeInt(f.getAttempt());
            optionalString(out, f.getWorkerId());
            out.writeEnum(f.getOutcome().ordinal());
            out.writeEnum(f.getState().ordinal());
            optionalString(out, f.getError());
        }

        @Override
        public TaskFinished read(Decoder in) throws IOException {
            return new TaskFinished(in.readString(), in.readInt(), optionalString(in), Binary.symbol(in, OUTCOMES),
                    Binary.symbol(in, STATES), optionalString(in));
        }
    };

    static final Part<TaskWaiting> WAITING = new Part<>() {
        @Override
        public void write(TaskWaiting w, Encoder out) throws IOException {
            out.writeString(w.getTaskId());
            out.writeString(w.getReason());
        }

        @Override
        public TaskWaiting read(Decoder in) throws IOException {
            return new TaskWaiting(in.readString(), in.readString());
        }
    };
}
