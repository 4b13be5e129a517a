package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRecord;
import io.cronoq.schemas.codec.ListDatumReader;
import io.cronoq.schemas.codec.RandomDatum;
import io.cronoq.schemas.codec.RecordCodec;
import io.cronoq.schemas.codec.SameRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The serde with its hand-written codecs: today's schema is read by the codec, every released version of the
 * same record by Avro's resolution, with the same records either way, and a record missing a required field is
 * refused with Avro's own words.
 */
class AvroSerdeCodecTest {

    private static final String TOPIC = "cronoq-test";
    private static final int PER_VERSION = 300;

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();

    @ParameterizedTest
    @ValueSource(classes = {TaskRecord.class, JournalEntry.class, AssignmentEvent.class, WorkerRecord.class,
            SubmissionEvent.class, CompletionEvent.class})
    void todaysRecordsAreReadByTheCodec(Class<? extends SpecificRecord> type) {
        roundTripByHand(type);
    }

    private <T extends SpecificRecord> void roundTripByHand(Class<T> type) {
        AvroSerde<T> serde = AvroSerde.of(type, registry);
        List<T> samples = serde.schema().getField("event") != null
                ? SampleRecords.everyBranchOf(type) : List.of(SampleRecords.filled(type));
        for (T sample : samples) {
            byte[] bytes = serde.serialize(TOPIC, sample);
            assertThat(serde.deserialize(TOPIC, bytes)).isEqualTo(sample);
            assertThat(serde.readsByHand(idOf(bytes))).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {TaskRecord.class, JournalEntry.class, AssignmentEvent.class, WorkerRecord.class,
            SubmissionEvent.class, CompletionEvent.class})
    void everyReleasedVersionReadsAsAvroReadsIt(Class<? extends SpecificRecord> type) throws Exception {
        readReleased(type);
    }

    private <T extends SpecificRecord> void readReleased(Class<T> type) throws Exception {
        AvroSerde<T> serde = AvroSerde.of(type, registry);
        Schema today = serde.schema();
        int versions = 0;
        for (Path dir : ReleasedSchemas.versions()) {
            Schema released = ReleasedSchemas.parseAll(dir).get(today.getFullName());
            if (released == null) {
                continue;
            }
            versions++;
            int id = registry.register(serde.subject(TOPIC), released);
            ListDatumReader<T> avro = new ListDatumReader<>(released, today, ListDatumReader.readingModel(type));
            GenericDatumWriter<Object> writer = new GenericDatumWriter<>(released, GenericData.get());
            RandomDatum random = new RandomDatum(dir.getFileName().toString().hashCode());
            for (int i = 0; i < PER_VERSION; i++) {
                byte[] body = body(writer, random.of(released));
                T expected = avro.read(null, DecoderFactory.get().binaryDecoder(body, null));
                SameRecord.same(serde.deserialize(TOPIC, withHeader(id, body)), expected,
                        type.getSimpleName() + " of " + dir.getFileName() + ", instance " + i);
            }
            assertThat(serde.readsByHand(id))
                    .as("%s of %s is read by the codec only if it is today's schema", type.getSimpleName(), dir)
                    .isEqualTo(RecordCodec.fingerprint(released) == RecordCodec.fingerprint(today));
        }
        assertThat(versions).as("released versions of %s", type.getSimpleName()).isPositive();
    }

    @Test
    void aRequiredFieldLeftNullIsRefusedInAvrosWords() {
        AvroSerde<TaskRecord> serde = AvroSerde.of(TaskRecord.class, registry);
        TaskRecord missingTask = SampleRecords.filled(TaskRecord.class);
        missingTask.setTask(null);
        assertThatThrownBy(() -> serde.serialize(TOPIC, missingTask))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("Cannot serialize a TaskRecord")
                .hasMessageContaining("TaskRecord.task");
        // The failed attempt left nothing behind in the thread's buffer.
        TaskRecord whole = SampleRecords.filled(TaskRecord.class);
        assertThat(serde.deserialize(TOPIC, serde.serialize(TOPIC, whole))).isEqualTo(whole);
    }

    @Test
    void aBodyWrittenAheadGetsTheHeaderTheSerdeWrites() {
        AvroSerde<JournalEntry> serde = AvroSerde.of(JournalEntry.class, registry);
        for (JournalEntry sample : SampleRecords.everyBranchOf(JournalEntry.class)) {
            byte[] whole = serde.serialize(TOPIC, sample);
            byte[] body = Arrays.copyOfRange(whole, 5, whole.length);
            assertThat(serde.bodySerializer().serialize(TOPIC, body)).isEqualTo(whole);
        }
        assertThat(serde.bodySerializer().serialize(TOPIC, null)).isNull();
    }

    @Test
    void aRecordWithoutACodecHasNoBodiesWrittenAhead() {
        AvroSerde<TaskWaiting> serde = AvroSerde.of(TaskWaiting.class, registry);
        assertThatThrownBy(serde::bodySerializer)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("TaskWaiting has no hand-written codec");
    }

    private static byte[] body(GenericDatumWriter<Object> writer, Object datum) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
        writer.write(datum, out);
        out.flush();
        return bytes.toByteArray();
    }

    private static byte[] withHeader(int id, byte[] body) {
        return ByteBuffer.allocate(5 + body.length).put((byte) 0).putInt(id).put(body).array();
    }

    private static int idOf(byte[] bytes) {
        return ByteBuffer.wrap(bytes, 1, 4).getInt();
    }

}
