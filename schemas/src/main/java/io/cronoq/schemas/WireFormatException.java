package io.cronoq.schemas;

import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record's bytes are not a value of the expected type in the Confluent wire format: wrong magic byte,
 * truncated, unknown schema id, a schema of another type, or a body that does not match its schema. The message
 * names the topic (and the partition and offset once {@link #withOffset} added them), what was wrong and what to
 * do. It is a Kafka {@link SerializationException}, so Kafka Streams' deserialization handlers see it; such a
 * record is poison and belongs in the dead-letter topic.
 */
public class WireFormatException extends SerializationException {

    private static final long serialVersionUID = 1L;

    /** What was wrong with the bytes. */
    public enum Problem {
        /** Byte 0 was not 0: not written by a Confluent-wire-format serializer. */
        WRONG_MAGIC_BYTE("Produce the value with cronoq's AvroSerde or any Confluent-compatible Avro serializer."),
        /** Fewer than the 5 header bytes, or the Avro body ended early. */
        TRUNCATED("The value was cut short in transit or by its producer; produce it again whole."),
        /** The schema id is not in the registry this reader uses. */
        UNKNOWN_SCHEMA_ID("Point producers and consumers at the same schema registry (the same schema.registry.url, "
                + "or the same <prefix>_schemas topic on the same cluster)."),
        /** The writer schema cannot be read as the expected type: another event type, or an incompatible change. */
        INCOMPATIBLE_SCHEMA("Check that the producer writes to the right topic, and evolve schemas compatibly only "
                + "(new fields need defaults; never rename or remove a field without a default)."),
        /** The Avro body does not match its writer schema. */
        CORRUPT_PAYLOAD("The bytes do not match the schema their id names; find the producer that wrote them.");

        private final String advice;

        Problem(String advice) {
            this.advice = advice;
        }

        /** What to do about it, in one sentence. */
        public String advice() {
            return advice;
        }
    }

    private final Problem problem;
    private final String topic;
    private final String expectedType;
    private final Integer schemaId;
    private final String detail;
    private final Integer partition;
    private final Long offset;

    /**
     * A wire-format failure of a record read from {@code topic} as {@code expectedType}.
     *
     * @param schemaId the schema id in the header, or null if it could not be read
     * @param detail   what exactly was wrong, e.g. "byte 0 is 0x7b, expected 0x00"
     */
    public WireFormatException(Problem problem, String topic, String expectedType, Integer schemaId, String detail,
                               Throwable cause) {
        this(problem, topic, expectedType, schemaId, detail, null, null, cause);
    }

    private WireFormatException(Problem problem, String topic, String expectedType, Integer schemaId, String detail,
                                Integer partition, Long offset, Throwable cause) {
        super(message(problem, topic, expectedType, schemaId, detail, partition, offset), cause);
        this.problem = Objects.requireNonNull(problem, "problem");
        this.topic = topic;
        this.expectedType = expectedType;
        this.schemaId = schemaId;
        this.detail = detail;
        this.partition = partition;
        this.offset = offset;
    }

    /** The same failure with the record's coordinates in the message: the deserializer does not know them, the consumer does. */
    public WireFormatException withOffset(int partition, long offset) {
        WireFormatException located = new WireFormatException(problem, topic, expectedType, schemaId, detail,
                partition, offset, getCause());
        located.setStackTrace(getStackTrace());
        return located;
    }

    private static String message(Problem problem, String topic, String expectedType, Integer schemaId,
                                  String detail, Integer partition, Long offset) {
        StringBuilder m = new StringBuilder("Cannot decode a record of topic '").append(topic).append('\'');
        if (partition != null) {
            m.append(" partition ").append(partition);
        }
        if (offset != null) {
            m.append(" offset ").append(offset);
        }
        m.append(" as ").append(expectedType);
        if (schemaId != null) {
            m.append(" (schema id ").append(schemaId).append(')');
        }
        m.append(": ").append(problem.name().toLowerCase(Locale.ROOT).replace('_', ' '))
                .append(" - ").append(detail).append(". ").append(problem.advice());
        return m.toString();
    }

    /** What was wrong. */
    public Problem problem() {
        return problem;
    }

    /** The topic the record was read from. */
    public String topic() {
        return topic;
    }

    /** The schema id in the record's header, if it could be read. */
    public OptionalInt schemaId() {
        return schemaId == null ? OptionalInt.empty() : OptionalInt.of(schemaId);
    }

    /** The record's partition, once {@link #withOffset} set it. */
    public OptionalInt partition() {
        return partition == null ? OptionalInt.empty() : OptionalInt.of(partition);
    }

    /** The record's offset, once {@link #withOffset} set it. */
    public OptionalLong offset() {
        return offset == null ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
