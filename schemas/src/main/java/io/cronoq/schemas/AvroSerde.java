package io.cronoq.schemas;

import io.cronoq.schemas.codec.Codecs;
import io.cronoq.schemas.codec.ListDatumReader;
import io.cronoq.schemas.codec.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde for one generated Avro class in the Confluent wire format: byte 0 = 0, bytes 1-4 = schema id
 * (big-endian), then Avro binary. Serializing registers the class's schema under {@code <topic>-value}
 * ({@code <topic>-key} for {@link #forKeys}); deserializing reads the writer schema by id and resolves it to
 * the class's schema, so data written by older schema versions reads into newer code. Bad bytes raise
 * {@link WireFormatException} (dead-letter the record); an unreachable registry raises
 * {@link SchemaRegistryException} (retry or stop). Thread-safe; ids, schemas and resolved readers are cached.
 *
 * <p>The hottest records (the task record, the journal entry, the assignment) are written, and read when written
 * with today's schema, by their hand-written {@link RecordCodec}s, which write Avro's bytes without Avro's
 * walk of the schema; every other record, and data written with another schema version, goes through Avro.
 */
public final class AvroSerde<T extends SpecificRecord> implements Serde<T>, Serializer<T>, Deserializer<T> {

    private static final byte MAGIC_BYTE = 0;
    private static final int HEADER_LENGTH = 5;
    /** A thread's output buffer is dropped rather than kept once a record made it larger than this. */
    private static final int MAX_RETAINED_BUFFER = 1 << 20;
    private static final ThreadLocal<Output> OUTPUT = ThreadLocal.withInitial(Output::new);
    private static final ThreadLocal<BinaryDecoder> DECODER = new ThreadLocal<>();

    private final Class<T> type;
    private final Schema schema;
    private final SchemaRegistry registry;
    private final String subjectSuffix;
    private final SpecificData readModel;
    private final DatumWriter<T> avroWriter;
    /** The hand-written codec of this class's schema, or null: then Avro writes and reads everything. */
    private final RecordCodec<T> codec;
    private final Map<String, Integer> idsByTopic = new ConcurrentHashMap<>();
    private final Map<Integer, Resolution<T>> resolutionsById = new ConcurrentHashMap<>();

    private AvroSerde(Class<T> type, SchemaRegistry registry, String subjectSuffix) {
        // Also done by the generated classes themselves; here for classes generated elsewhere.
        AvroTrust.ensureTrusted();
        this.type = Objects.requireNonNull(type, "type");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.subjectSuffix = subjectSuffix;
        SpecificData model = SpecificData.getForClass(type);
        this.schema = model.getSchema(type);
        this.avroWriter = new SpecificDatumWriter<>(schema, new UnionBranches(model, type.getClassLoader()));
        this.readModel = ListDatumReader.readingModel(type);
        this.codec = Codecs.forType(type, schema).orElse(null);
    }

    /** A serde for record values, registering under the subject {@code <topic>-value}. */
    public static <T extends SpecificRecord> AvroSerde<T> of(Class<T> type, SchemaRegistry registry) {
        return new AvroSerde<>(type, registry, "-value");
    }

    /** A serde for record keys, registering under the subject {@code <topic>-key}. */
    public static <T extends SpecificRecord> AvroSerde<T> forKeys(Class<T> type, SchemaRegistry registry) {
        return new AvroSerde<>(type, registry, "-key");
    }

    /** The generated class this serde reads and writes. */
    public Class<T> type() {
        return type;
    }

    /** The class's (reader and writer) schema. */
    public Schema schema() {
        return schema;
    }

    /** The subject this serde registers under for a topic (TopicNameStrategy). */
    public String subject(String topic) {
        return topic + subjectSuffix;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        int id = idFor(topic);
        Output out = OUTPUT.get();
        try {
            out.reset();
            out.write(MAGIC_BYTE);
            out.write(id >>> 24);
            out.write(id >>> 16);
            out.write(id >>> 8);
            out.write(id);
            if (out.encoder == null) {
                // Buffered: the direct encoder hands every varint to the stream byte by byte. Made once per
                // thread: configuring it again for the same stream would make a new sink and channel per record.
                out.encoder = EncoderFactory.get().binaryEncoder(out, null);
            }
            if (codec == null || !wroteByHand(data, out)) {
                avroWriter.write(data, out.encoder);
            }
            out.encoder.flush();
            return out.toByteArray();
        } catch (IOException | RuntimeException e) {
            out.encoder = null; // it may hold bytes of the record that failed
            throw new SerializationException("Cannot serialize a " + type.getSimpleName() + " for topic '" + topic
                    + "': " + e.getMessage() + ". Build the record with its builder, which checks required fields.", e);
        } finally {
            out.release();
        }
    }

    /**
     * A serializer of bodies already written in this class's schema of today (by its codec, as
     * {@link io.cronoq.schemas.codec.GatheredBodies} writes them): it puts the wire header, with the schema id
     * registered for the topic, before them.
     */
    public Serializer<byte[]> bodySerializer() {
        if (codec == null) {
            throw new IllegalStateException(type.getSimpleName() + " has no hand-written codec for its schema of today,"
                    + " so nothing writes its bodies ahead: serialize the records with this serde instead");
        }
        return (topic, body) -> {
            if (body == null) {
                return null;
            }
            return ByteBuffer.allocate(HEADER_LENGTH + body.length).put(MAGIC_BYTE).putInt(idFor(topic)).put(body)
                    .array();
        };
    }

    /** The id of this class's schema under the topic's subject, registered on first use. */
    private int idFor(String topic) {
        return idsByTopic.computeIfAbsent(topic, t -> registry.register(subject(t), schema));
    }

    /**
     * Writes the record with its codec after the header; false, with the output back at the header's end, when
     * the codec could not (a required field left null): Avro's writer then names the field in its error.
     */
    private boolean wroteByHand(T data, Output out) throws IOException {
        try {
            codec.write(data, out.encoder);
            return true;
        } catch (RuntimeException e) {
            out.encoder.flush();
            out.truncate(HEADER_LENGTH);
            return false;
        }
    }

    /** Whether records written with this schema id are read by the hand-written codec (known ids only). */
    boolean readsByHand(int id) {
        Resolution<T> resolution = resolutionsById.get(id);
        return resolution != null && resolution.reader instanceof CodecReader;
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (data.length < HEADER_LENGTH) {
            throw new WireFormatException(WireFormatException.Problem.TRUNCATED, topic, type.getSimpleName(), null,
                    "the value has " + data.length + " bytes, fewer than the 5-byte header", null);
        }
        if (data[0] != MAGIC_BYTE) {
            throw new WireFormatException(WireFormatException.Problem.WRONG_MAGIC_BYTE, topic, type.getSimpleName(),
                    null, String.format("byte 0 is 0x%02x, expected 0x00", data[0] & 0xff), null);
        }
        int id = ((data[1] & 0xff) << 24) | ((data[2] & 0xff) << 16) | ((data[3] & 0xff) << 8) | (data[4] & 0xff);
        DatumReader<T> reader = readerFor(topic, id);
        BinaryDecoder decoder = DecoderFactory.get()
                .binaryDecoder(data, HEADER_LENGTH, data.length - HEADER_LENGTH, DECODER.get());
        DECODER.set(decoder);
        T value;
        try {
            value = reader.read(null, decoder);
        } catch (EOFException e) {
            throw new WireFormatException(WireFormatException.Problem.TRUNCATED, topic, type.getSimpleName(), id,
                    "the Avro body ended early (" + (data.length - HEADER_LENGTH) + " bytes)", e);
        } catch (SecurityException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new WireFormatException(WireFormatException.Problem.CORRUPT_PAYLOAD, topic, type.getSimpleName(),
                    id, "the Avro body does not match its schema: " + e, e);
        }
        if (!isEnd(decoder)) {
            throw new WireFormatException(WireFormatException.Problem.CORRUPT_PAYLOAD, topic, type.getSimpleName(), id,
                    "bytes are left over after the record", null);
        }
        return value;
    }

    private static boolean isEnd(BinaryDecoder decoder) {
        try {
            return decoder.isEnd();
        } catch (IOException e) {
            return false;
        }
    }

    private DatumReader<T> readerFor(String topic, int id) {
        Resolution<T> resolution = resolutionsById.get(id);
        if (resolution == null) {
            // Unknown ids are not cached: another process may register the schema any moment.
            Schema writerSchema = registry.byId(id).orElseThrow(() -> new WireFormatException(
                    WireFormatException.Problem.UNKNOWN_SCHEMA_ID, topic, type.getSimpleName(), id,
                    "the schema registry has no schema with this id", null));
            resolution = resolutionsById.computeIfAbsent(id, i -> resolve(writerSchema));
        }
        if (resolution.reader == null) {
            throw new WireFormatException(WireFormatException.Problem.INCOMPATIBLE_SCHEMA, topic, type.getSimpleName(),
                    id, resolution.incompatibility, null);
        }
        return resolution.reader;
    }

    private Resolution<T> resolve(Schema writerSchema) {
        SchemaPairCompatibility compatibility = SchemaCompatibility.checkReaderWriterCompatibility(schema, writerSchema);
        if (compatibility.getType() != SchemaCompatibilityType.COMPATIBLE) {
            String what = writerSchema.getFullName().equals(schema.getFullName())
                    ? "it was written with an incompatible version of " + writerSchema.getFullName()
                    : "it was written as " + writerSchema.getFullName() + ", another type";
            return new Resolution<>(null, what + " (" + compatibility.getResult().getIncompatibilities().stream()
                    .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage())
                    .findFirst().orElse(compatibility.getDescription()) + ")");
        }
        if (codec != null && RecordCodec.fingerprint(writerSchema) == codec.pinned()) {
            return new Resolution<>(new CodecReader<>(codec), null);
        }
        return new Resolution<>(new ListDatumReader<>(writerSchema, schema, readModel), null);
    }

    @Override
    public Serializer<T> serializer() {
        return this;
    }

    @Override
    public Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        // Configured at construction: the type, the registry and key-or-value are fixed there.
    }

    @Override
    public void close() {
        // The registry belongs to whoever created it and is closed there.
    }

    @Override
    public String toString() {
        return "AvroSerde[" + type.getName() + subjectSuffix + "]";
    }

    /** A reader for one writer schema id, or why there cannot be one. */
    private static final class Resolution<T> {
        final DatumReader<T> reader;
        final String incompatibility;

        Resolution(DatumReader<T> reader, String incompatibility) {
            this.reader = reader;
            this.incompatibility = incompatibility;
        }
    }

    /** A hand-written codec as Avro's reader interface: it reads exactly the schema it pins. */
    private record CodecReader<T>(RecordCodec<T> codec) implements DatumReader<T> {
        @Override
        public void setSchema(Schema writer) {
            // The codec reads one schema, the one it pins; it is chosen only for that schema.
        }

        @Override
        public T read(T reuse, Decoder in) throws IOException {
            return codec.read(in);
        }
    }

    /** A per-thread output buffer with the encoder bound to it, reused across records. */
    private static final class Output extends ByteArrayOutputStream {
        BinaryEncoder encoder;

        Output() {
            super(256);
        }

        /** Drops what was written after the first {@code length} bytes. */
        void truncate(int length) {
            count = length;
        }

        void release() {
            if (buf.length > MAX_RETAINED_BUFFER) {
                OUTPUT.remove();
            }
        }
    }
}
