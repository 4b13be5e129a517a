package io.cronoq.schemas.codec;

import static io.cronoq.schemas.codec.Binary.instant;
import static io.cronoq.schemas.codec.Binary.optionalInstant;
import static io.cronoq.schemas.codec.Binary.optionalInt;
import static io.cronoq.schemas.codec.Binary.optionalLong;
import static io.cronoq.schemas.codec.Binary.optionalString;
import static io.cronoq.schemas.codec.Binary.present;
import static io.cronoq.schemas.codec.Binary.strings;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Dependency;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSpec;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import java.io.IOException;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * A submitted task, field by field in its schema's order, with the records it holds (resources, retry policy,
 * preferences, concurrency keys, rate limits, parents). Part of the task record and of journal entries.
 */
final class TaskSubmittedPart implements Part<TaskSubmitted> {

    static final TaskSubmittedPart INSTANCE = new TaskSubmittedPart();
    private static final Priority[] PRIORITIES = Priority.values();
    private static final GangPlacement[] PLACEMENTS = GangPlacement.values();
    private static final ParentCondition[] CONDITIONS = ParentCondition.values();

    private TaskSubmittedPart() {
    }

    @Override
    public void write(TaskSubmitted t, Encoder out) throws IOException {
        out.writeString(t.getTaskId());
        out.writeString(t.getPool());
        strings(out, t.getLabels());
        ResourceRequest resources = t.getResources();
        if (present(out, resources)) {
            RESOURCES.write(resources, out);
        }
        out.writeBytes(t.getPayload());
        out.writeEnum(t.getPriority().ordinal());
        optionalInstant(out, t.getDeadline());
        optionalInstant(out, t.getNotBefore());
        optionalInstant(out, t.getStartAt());
        optionalLong(out, t.getStartToleranceMs());
        optionalLong(out, t.getTimeoutMs());
        RetryPolicy retry = t.getRetry();
        if (present(out, retry)) {
            RETRY.write(retry, out);
        }
        Binary.array(out, t.getPreferences(), PREFERENCE);
        optionalString(out, t.getSubmitter());
        instant(out, t.getSubmittedAt());
        optionalString(out, t.getTenant());
        Binary.array(out, t.getConcurrency(), CONCURRENCY_KEY);
        Binary.array(out, t.getRateLimits(), RATE_LIMIT_USE);
        GangSpec gang = t.getGang();
        if (present(out, gang)) {
            GANG.write(gang, out);
        }
        Binary.array(out, t.getAfter(), DEPENDENCY);
        out.writeBoolean(t.getRunIfParentUnmet());
        optionalString(out, t.getWorkflow());
    }

    @Override
    public TaskSubmitted read(Decoder in) throws IOException {
        return new TaskSubmitted(in.readString(), in.readString(), strings(in),
                present(in) ? RESOURCES.read(in) : null,
                in.readBytes(null), Binary.symbol(in, PRIORITIES),
                optionalInstant(in), optionalInstant(in), optionalInstant(in),
                optionalLong(in), optionalLong(in),
                present(in) ? RETRY.read(in) : null,
                Binary.array(in, PREFERENCE), optionalString(in), instant(in), optionalString(in),
                Binary.array(in, CONCURRENCY_KEY), Binary.array(in, RATE_LIMIT_USE),
                present(in) ? GANG.read(in) : null,
                Binary.array(in, DEPENDENCY), in.readBoolean(), optionalString(in));
    }

    static final Part<ResourceRequest> RESOURCES = new Part<>() {
        @Override
        public void write(ResourceRequest r, Encoder out) throws IOException {
            optionalLong(out, r.getCpuMillis());
            optionalLong(out, r.getMemoryBytes());
            optionalLong(out, r.getDiskBytes());
            optionalInt(out, r.getGpu());
            Binary.array(out, r.getPackages(), Binary.STRING);
        }

        @Override
        public ResourceRequest read(Decoder in) throws IOException {
            return new ResourceRequest(optionalLong(in), optionalLong(in), optionalLong(in), optionalInt(in),
                    Binary.array(in, Binary.STRING));
        }
    };

    static final Part<RetryPolicy> RETRY = new Part<>() {
        @Override
        public void write(RetryPolicy r, Encoder out) throws IOException {
            out.writeInt(r.getMaxAttempts());
            out.writeLong(r.getInitialBackoffMs());
            out.writeLong(r.getMaxBackoffMs());
            out.writeDouble(r.getMultiplier());
        }

        @Override
        public RetryPolicy read(Decoder in) throws IOException {
            return new RetryPolicy(in.readInt(), in.readLong(), in.readLong(), in.readDouble());
        }
    };

    static final Part<Preference> PREFERENCE = new Part<>() {
        @Override
        public void write(Preference p, Encoder out) throws IOException {
            strings(out, p.getLabels());
            out.writeInt(p.getWeight());
        }

        @Override
        public Preference read(Decoder in) throws IOException {
            return new Preference(strings(in), in.readInt());
        }
    };

    static final Part<ConcurrencyKey> CONCURRENCY_KEY = new Part<>() {
        @Override
        public void write(ConcurrencyKey k, Encoder out) throws IOException {
            out.writeString(k.getKey());
            optionalInt(out, k.getMax());
        }

        @Override
        public ConcurrencyKey read(Decoder in) throws IOException {
            return new ConcurrencyKey(in.readString(), optionalInt(in));
        }
    };

    static final Part<GangSpec> GANG = new Part<>() {
        @Override
        public void write(GangSpec g, Encoder out) throws IOException {
            out.writeString(g.getGangId());
            out.writeInt(g.getSize());
            out.writeInt(g.getRank());
            out.writeEnum(g.getPlacement().ordinal());
            optionalString(out, g.getSameLabel());
        }

        @Override
        public GangSpec read(Decoder in) throws IOException {
            return new GangSpec(in.readString(), in.readInt(), in.readInt(), Binary.symbol(in, PLACEMENTS),
                    optionalString(in));
        }
    };

    static final Part<Dependency> DEPENDENCY = new Part<>() {
        @Override
        public void write(Dependency d, Encoder out) throws IOException {
            out.writeString(d.getTask());
            optionalString(out, d.getPool());
            out.writeEnum(d.getWhen().ordinal());
        }

        @Override
        public Dependency read(Decoder in) throws IOException {
            return new Dependency(in.readString(), optionalString(in), Binary.symbol(in, CONDITIONS));
        }
    };

    static final Part<RateLimitUse> RATE_LIMIT_USE = new Part<>() {
        @Override
        public void write(RateLimitUse u, Encoder out) throws IOException {
            out.writeString(u.getName());
            out.writeInt(u.getUnits());
        }

        @Override
        public RateLimitUse read(Decoder in) throws IOException {
            return new RateLimitUse(in.readString(), in.readInt());
        }
    };
}
