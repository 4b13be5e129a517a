package io.cronoq.schemas.codec;

import static io.cronoq.schemas.codec.Binary.instant;
import static io.cronoq.schemas.codec.Binary.optionalInstant;
import static io.cronoq.schemas.codec.Binary.optionalString;
import static io.cronoq.schemas.codec.Binary.present;
import static io.cronoq.schemas.codec.Binary.strings;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.Gpu;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerResources;
import io.cronoq.events.WorkerState;
import java.io.IOException;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * The worker record (store {@code cronoq-workers}), written field by field: a busy worker's record carries every
 * attempt it holds, and it is written again by each input that gives it an attempt or takes one back.
 */
public final class WorkerRecordCodec implements RecordCodec<WorkerRecord> {

    /** The fingerprint of the WorkerRecord schema this codec writes; a changed schema fails a test until it follows. */
    static final long PINNED = 0x20a1eac292a3a8f6L;
    private static final WorkerState[] STATES = WorkerState.values();

    @Override
    public Class<WorkerRecord> type() {
        return WorkerRecord.class;
    }

    @Override
    public long pinned() {
        return PINNED;
    }

    @Override
    public void write(WorkerRecord r, Encoder out) throws IOException {
        out.writeString(r.getWorkerId());
        out.writeString(r.getPool());
        strings(out, r.getLabels());
        out.writeInt(r.getSlots());
        WorkerResources resources = r.getResources();
        if (present(out, resources)) {
            RESOURCES.write(resources, out);
        }
        out.writeLong(r.getGeneration());
        out.writeEnum(r.getState().ordinal());
        Binary.array(out, r.getRunning(), ATTEMPT);
        instant(out, r.getRegisteredAt());
        out.writeLong(r.getLastAssignedSequence());
        instant(out, r.getLastHeartbeat());
        optionalInstant(out, r.getLeftAt());
        optionalString(out, r.getLeaveReason());
        optionalString(out, r.getAddress());
    }

    @Override
    public WorkerRecord read(Decoder in) throws IOException {
        return new WorkerRecord(in.readString(), in.readString(), strings(in), in.readInt(),
                present(in) ? RESOURCES.read(in) : null, in.readLong(), Binary.symbol(in, STATES),
                Binary.array(in, ATTEMPT), instant(in), in.readLong(), instant(in), optionalInstant(in),
                optionalString(in), optionalString(in));
    }

    /** One attempt the worker holds: the element written most, up to a slot count of them per record. */
    private static final Part<AttemptRef> ATTEMPT = new Part<>() {
        @Override
        public void write(AttemptRef a, Encoder out) throws IOException {
            out.writeString(a.getTaskId());
            out.writeInt(a.getAttempt());
            optionalString(out, a.getTenant());
            out.writeInt(a.getGpus());
            Binary.array(out, a.getConcurrency(), TaskSubmittedPart.CONCURRENCY_KEY);
        }

        @Override
        public AttemptRef read(Decoder in) throws IOException {
            return new AttemptRef(in.readString(), in.readInt(), optionalString(in), in.readInt(),
                    Binary.array(in, TaskSubmittedPart.CONCURRENCY_KEY));
        }
    };

    private static final Part<Gpu> GPU = new Part<>() {
        @Override
        public void write(Gpu g, Encoder out) throws IOException {
            out.writeInt(g.getIndex());
            optionalString(out, g.getModel());
            out.writeLong(g.getMemoryBytes());
            out.writeLong(g.getMemoryFreeBytes());
        }

        @Override
        public Gpu read(Decoder in) throws IOException {
            return new Gpu(in.readInt(), optionalString(in), in.readLong(), in.readLong());
        }
    };

    private static final Part<WorkerResources> RESOURCES = new Part<>() {
        @Override
        public void write(WorkerResources r, Encoder out) throws IOException {
            out.writeLong(r.getCpuMillis());
            out.writeLong(r.getMemoryBytes());
            out.writeLong(r.getDiskBytes());
            Binary.array(out, r.getGpus(), GPU);
            strings(out, r.getPackages());
        }

        @Override
        public WorkerResources read(Decoder in) throws IOException {
            return new WorkerResources(in.readLong(), in.readLong(), in.readLong(), Binary.array(in, GPU),
                    strings(in));
        }
    };
}
