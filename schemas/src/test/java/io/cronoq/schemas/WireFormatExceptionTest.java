package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.WorkerEvent;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class WireFormatExceptionTest {

    private static final String TOPIC = "cronoq.submissions";

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private final AvroSerde<SubmissionEvent> submissions = AvroSerde.of(SubmissionEvent.class, registry);

    @Test
    void wrongMagicByteSaysItIsNotTheConfluentWireFormat() {
        byte[] json = "{\"taskId\":\"t-1\"}".getBytes(StandardCharsets.UTF_8);

        WireFormatException e = decodeFailure(json);

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.WRONG_MAGIC_BYTE);
        assertThat(e.schemaId()).isEmpty();
        assertThat(e).hasMessageContaining("'" + TOPIC + "'").hasMessageContaining("0x7b")
                .hasMessageContaining("AvroSerde");
    }

    @Test
    void valueShorterThanTheHeaderIsTruncated() {
        WireFormatException e = decodeFailure(new byte[] {0, 0, 1});

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.TRUNCATED);
        assertThat(e).hasMessageContaining("'" + TOPIC + "'").hasMessageContaining("3 bytes");
    }

    @Test
    void avroBodyCutShortIsTruncated() {
        byte[] whole = submissions.serialize(TOPIC, sample());

        WireFormatException e = decodeFailure(Arrays.copyOf(whole, whole.length - 10));

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.TRUNCATED);
        assertThat(e.schemaId()).hasValue(SchemaIds.idOf(SubmissionEvent.getClassSchema()));
        assertThat(e).hasMessageContaining("'" + TOPIC + "'").hasMessageContaining("ended early");
    }

    @Test
    void unknownSchemaIdSaysToShareTheRegistry() {
        byte[] bytes = submissions.serialize(TOPIC, sample());
        ByteBuffer.wrap(bytes).putInt(1, 123_456);

        WireFormatException e = decodeFailure(bytes);

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.UNKNOWN_SCHEMA_ID);
        assertThat(e.schemaId()).hasValue(123_456);
        assertThat(e).hasMessageContaining("'" + TOPIC + "'").hasMessageContaining("123456")
                .hasMessageContaining("same schema registry");
    }

    @Test
    void recordOfAnotherTypeIsIncompatibleAndNamesBothTypes() {
        AvroSerde<WorkerEvent> workers = AvroSerde.of(WorkerEvent.class, registry);
        byte[] workerBytes = workers.serialize(TOPIC, SampleRecords.everyBranchOf(WorkerEvent.class).get(0));

        WireFormatException e = decodeFailure(workerBytes);

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.INCOMPATIBLE_SCHEMA);
        assertThat(e).hasMessageContaining("'" + TOPIC + "'").hasMessageContaining("io.cronoq.events.WorkerEvent")
                .hasMessageContaining("SubmissionEvent").hasMessageContaining("right topic");
        // Cached: the second failure is the same verdict, without asking the registry again.
        assertThat(decodeFailure(workerBytes).problem()).isEqualTo(WireFormatException.Problem.INCOMPATIBLE_SCHEMA);
    }

    @Test
    void leftoverBytesAreACorruptPayload() {
        byte[] whole = submissions.serialize(TOPIC, sample());

        WireFormatException e = decodeFailure(Arrays.copyOf(whole, whole.length + 3));

        assertThat(e.problem()).isEqualTo(WireFormatException.Problem.CORRUPT_PAYLOAD);
        assertThat(e).hasMessageContaining("left over");
    }

    @Test
    void withOffsetAddsTheCoordinatesAndKeepsTheRest() {
        WireFormatException e = decodeFailure(new byte[] {1, 2, 3, 4, 5});

        WireFormatException located = e.withOffset(3, 42L);

        assertThat(located).isInstanceOf(SerializationException.class)
                .hasMessageStartingWith("Cannot decode a record of topic '" + TOPIC + "' partition 3 offset 42 as "
                        + "SubmissionEvent");
        assertThat(located.partition()).hasValue(3);
        assertThat(located.offset()).hasValue(42L);
        assertThat(located.problem()).isEqualTo(e.problem());
        assertThat(located.getStackTrace()).isEqualTo(e.getStackTrace());
        assertThat(e.offset()).isEmpty();
    }

    private WireFormatException decodeFailure(byte[] bytes) {
        return catchThrowableOfType(WireFormatException.class, () -> submissions.deserialize(TOPIC, bytes));
    }

    private static SubmissionEvent sample() {
        return SampleRecords.everyBranchOf(SubmissionEvent.class).get(0);
    }
}
