package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.util.UUID;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskWaiting;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

// Alone: it swaps the JVM-wide Avro class validator that every other decoding test relies on.
@Isolated
class AvroTrustTest {

    private ClassSecurityPredicate saved;

    @BeforeEach
    void startFromAvrosDefaultTrust() {
        // Initialize the class first: its static initializer registers the trust this test takes away.
        TaskWaiting.getClassSchema();
        saved = ClassSecurityValidator.getGlobal();
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.DEFAULT);
    }

    @AfterEach
    void restoreTrust() {
        ClassSecurityValidator.setGlobal(saved);
    }

    @Test
    void testsRunWithoutTheSerializablePackagesFlag() {
        assertThat(System.getProperty("org.apache.avro.SERIALIZABLE_PACKAGES")).isNull();
        assertThat(ClassSecurityValidator.getGlobal().isTrusted(TaskWaiting.class)).isFalse();
    }

    @Test
    void avroRefusesGeneratedClassesUntilCronoqTrustsThem() throws IOException {
        TaskWaiting waiting = TaskWaiting.newBuilder().setTaskId("t-1").setReason("no capacity").build();
        byte[] bytes = encode(waiting);

        assertThatThrownBy(() -> decodeWithFreshModel(bytes)).isInstanceOf(SecurityException.class);

        AvroTrust.ensureTrusted();

        assertThat(decodeWithFreshModel(bytes)).isEqualTo(waiting);
    }

    @Test
    void serdeDecodesGeneratedClassesWithoutAnyFlag() {
        AvroSerde<SubmissionEvent> serde = AvroSerde.of(SubmissionEvent.class, new InMemorySchemaRegistry());
        SubmissionEvent event = SampleRecords.everyBranchOf(SubmissionEvent.class).get(0);

        assertThat(serde.deserialize("t", serde.serialize("t", event))).isEqualTo(event);
    }

    @Test
    void trustingCronoqKeepsWhatWasTrustedBefore() {
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(ClassSecurityValidator.DEFAULT,
                ClassSecurityValidator.builder().add(UUID.class).build()));

        AvroTrust.ensureTrusted();
        AvroTrust.ensureTrusted();

        assertThat(ClassSecurityValidator.getGlobal().isTrusted(UUID.class)).isTrue();
        assertThat(ClassSecurityValidator.getGlobal().isTrusted(TaskWaiting.class)).isTrue();
        assertThat(ClassSecurityValidator.getGlobal().isTrusted(File.class)).isFalse();
    }

    private static byte[] encode(TaskWaiting waiting) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new SpecificDatumWriter<>(TaskWaiting.class).write(waiting, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /** A fresh SpecificData has no class cache, so Avro checks the class again as a new process would. */
    private static TaskWaiting decodeWithFreshModel(byte[] bytes) throws IOException {
        SpecificDatumReader<TaskWaiting> reader =
                new SpecificDatumReader<>(TaskWaiting.SCHEMA$, TaskWaiting.SCHEMA$, new SpecificData());
        return reader.read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    }
}
