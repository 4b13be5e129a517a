package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRecord;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AvroSerdeRoundTripTest {

    private static final List<Class<? extends SpecificRecord>> ENVELOPES = List.of(SubmissionEvent.class,
            WorkerEvent.class, CompletionEvent.class, AssignmentEvent.class, JournalEntry.class);

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private final Topics topics = Topics.defaults(registry);

    static Stream<Arguments> everyBranchOfEveryEnvelope() {
        return ENVELOPES.stream().flatMap(type -> SampleRecords.everyBranchOf(type).stream()
                .map(sample -> Arguments.of(type.getSimpleName() + "(" + branchName(sample) + ")", sample)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyBranchOfEveryEnvelope")
    void everyEnvelopeBranchSurvivesARoundTrip(String name, SpecificRecord event) {
        assertRoundTrip(event);
    }

    @Test
    void samplesCoverEveryBranchOfEveryEnvelopeUnion() {
        for (Class<? extends SpecificRecord> type : ENVELOPES) {
            Set<String> branches = SampleRecords.everyBranchOf(type).stream()
                    .map(AvroSerdeRoundTripTest::branchName).collect(Collectors.toSet());
            Set<String> declared = eventUnion(type).getTypes().stream()
                    .map(Schema::getName).collect(Collectors.toSet());
            assertThat(branches).as(type.getSimpleName()).isEqualTo(declared);
        }
    }

    @Test
    void deadLetterAndStateRecordsSurviveARoundTrip() {
        assertRoundTrip(SampleRecords.filled(DeadLetter.class));
        assertRoundTrip(SampleRecords.filled(TaskRecord.class));
        assertRoundTrip(SampleRecords.filled(WorkerRecord.class));
        assertRoundTrip(SampleRecords.filled(PoolRecord.class));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyBranchOfEveryEnvelope")
    void writesTheBytesAvrosOwnWriterWrites(String name, SpecificRecord event) throws java.io.IOException {
        assertSameBytesAsAvro(event);
    }

    @Test
    void writesTheStateRecordsAsAvrosOwnWriterDoes() throws java.io.IOException {
        assertSameBytesAsAvro(SampleRecords.filled(TaskRecord.class));
        assertSameBytesAsAvro(SampleRecords.filled(WorkerRecord.class));
        assertSameBytesAsAvro(SampleRecords.filled(PoolRecord.class));
        assertSameBytesAsAvro(SampleRecords.filled(io.cronoq.events.SharingRecord.class));
        assertSameBytesAsAvro(SampleRecords.filled(io.cronoq.events.LimitsRecord.class));
        WorkerRecord busy = SampleRecords.filled(WorkerRecord.class);
        busy.setRunning(List.of(new io.cronoq.events.AttemptRef("t-1", 1, null, 0, List.of()),
                new io.cronoq.events.AttemptRef("tâche-2", 7, "research", 2,
                        List.of(new io.cronoq.events.ConcurrencyKey("customer-42", 2),
                                new io.cronoq.events.ConcurrencyKey("nightly", null))),
                new io.cronoq.events.AttemptRef("", Integer.MAX_VALUE, "", Integer.MAX_VALUE,
                        List.of(new io.cronoq.events.ConcurrencyKey("", Integer.MIN_VALUE)))));
        busy.setResources(null);
        assertSameBytesAsAvro(busy);
    }

    /** The serde's body (after the 5-byte header) equals what Avro's SpecificDatumWriter writes, twice in a row. */
    @SuppressWarnings("unchecked")
    private <T extends SpecificRecord> void assertSameBytesAsAvro(T record) throws java.io.IOException {
        AvroSerde<T> serde = topics.serde((Class<T>) record.getClass());
        var out = new java.io.ByteArrayOutputStream();
        var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
        new org.apache.avro.specific.SpecificDatumWriter<T>(record.getSchema()).write(record, encoder);
        encoder.flush();
        for (int i = 0; i < 2; i++) {
            byte[] bytes = serde.serialize("topic", record);
            assertThat(java.util.Arrays.copyOfRange(bytes, 5, bytes.length)).isEqualTo(out.toByteArray());
        }
    }

    @Test
    void bytesStartWithMagicZeroAndTheRegisteredSchemaId() {
        SubmissionEvent event = SampleRecords.everyBranchOf(SubmissionEvent.class).get(0);

        byte[] bytes = topics.submissions().valueSerde().serializer().serialize("cronoq.submissions", event);

        assertThat(bytes[0]).isZero();
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        assertThat(id).isEqualTo(SchemaIds.idOf(SubmissionEvent.getClassSchema()));
        assertThat(registry.byId(id)).contains(SubmissionEvent.getClassSchema());
        assertThat(registry.latest("cronoq.submissions-value")).hasValueSatisfying(
                latest -> assertThat(latest.id()).isEqualTo(id));
    }

    @Test
    void keySerdeRegistersUnderTheKeySubject() {
        AvroSerde<WorkerRecord> keys = AvroSerde.forKeys(WorkerRecord.class, registry);

        keys.serialize("t", SampleRecords.filled(WorkerRecord.class));

        assertThat(registry.subjects()).containsExactly("t-key");
    }

    @Test
    void recordMissingARequiredFieldFailsNamingTopicAndType() {
        AvroSerde<TaskWaiting> serde = topics.serde(TaskWaiting.class);

        assertThatThrownBy(() -> serde.serialize("cronoq.journal", new TaskWaiting()))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("TaskWaiting").hasMessageContaining("'cronoq.journal'");
    }

    @Test
    void decodedRecordsWithArraysOfTimestampedRecordsCompareAndHash() {
        TaskRecord record = SampleRecords.filled(TaskRecord.class);
        AvroSerde<TaskRecord> serde = topics.serde(TaskRecord.class);

        TaskRecord back = serde.deserialize("t", serde.serialize("t", record));

        assertThat(back.equals(record)).isTrue();
        assertThat(back.hashCode()).isEqualTo(record.hashCode());
    }

    @Test
    void nullIsATombstoneBothWays() {
        AvroSerde<DeadLetter> serde = topics.serde(DeadLetter.class);

        assertThat(serde.serialize("t", null)).isNull();
        assertThat(serde.deserialize("t", null)).isNull();
    }

    @Test
    void serdeIsSafeToShareAcrossThreads() throws Exception {
        AvroSerde<JournalEntry> serde = topics.serde(JournalEntry.class);
        List<JournalEntry> samples = SampleRecords.everyBranchOf(JournalEntry.class);

        List<Thread> threads = Stream.generate(() -> new Thread(() -> {
            for (int round = 0; round < 200; round++) {
                for (JournalEntry sample : samples) {
                    assertThat(serde.deserialize("j", serde.serialize("j", sample))).isEqualTo(sample);
                }
            }
        })).limit(4).toList();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        threads.forEach(t -> t.setUncaughtExceptionHandler((thread, e) -> failures.add(e)));
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(failures).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private <T extends SpecificRecord> void assertRoundTrip(T record) {
        AvroSerde<T> serde = topics.serde((Class<T>) record.getClass());

        T back = serde.deserialize("topic", serde.serialize("topic", record));

        assertThat(back).isEqualTo(record).isNotSameAs(record);
    }

    private static Schema eventUnion(Class<? extends SpecificRecord> type) {
        return SpecificData.get().getSchema(type).getField("event").schema();
    }

    private static String branchName(SpecificRecord envelope) {
        Object event = envelope.get(envelope.getSchema().getField("event").pos());
        return ((SpecificRecord) event).getSchema().getName();
    }
}
