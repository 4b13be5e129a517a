package io.cronoq.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each hand-written codec against Avro itself: for thousands of random records of its schema (every union branch,
 * nulls, empty and long arrays and maps) the codec writes the bytes Avro's writer writes and reads the record
 * Avro's reader reads, and it pins the fingerprint of the schema it was written for.
 */
class CodecsTest {

    private static final int INSTANCES = 3_000;

    static Stream<RecordCodec<?>> codecs() {
        return Codecs.all().stream();
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void pinsTheFingerprintOfTodaysSchema(RecordCodec<?> codec) {
        Schema schema = SpecificData.getForClass(codec.type()).getSchema(codec.type());
        assertThat(codec.pinned())
                .as("%s's schema changed: make %s write and read the new schema, then pin 0x%xL",
                        codec.type().getSimpleName(), codec.getClass().getSimpleName(), RecordCodec.fingerprint(schema))
                .isEqualTo(RecordCodec.fingerprint(schema));
        assertThat(Codecs.forType(codec.type(), schema)).contains(cast(codec));
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void aSchemaItWasNotWrittenForIsLeftToAvro(RecordCodec<?> codec) {
        Schema other = Schema.createRecord(codec.type().getSimpleName(), null, "elsewhere", false, List.of());
        assertThat(Codecs.forType(codec.type(), other)).isEmpty();
    }

    @ParameterizedTest
    @MethodSource("codecs")
    void writesAvrosBytesAndReadsAvrosRecords(RecordCodec<?> codec) throws IOException {
        check(cast(codec), 42);
    }

    @Test
    void aValueOfNoBranchOfTheUnionIsRefusedByName() {
        RecordUnion events = new RecordUnion(AssignmentEvent.getClassSchema().getField("event").schema(),
                AssignmentEvent.class);
        assertThatThrownBy(() -> events.write(new io.cronoq.events.TaskWaiting("t-1", "busy"),
                EncoderFactory.get().binaryEncoder(new ByteArrayOutputStream(), null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a io.cronoq.events.TaskWaiting is not a branch of this union");
    }

    @Test
    void aHostileCountIsNotAllocatedBeforeItsElementsAreRead() throws IOException {
        // Input topics are read by codecs too: a block that claims two billion elements ends at the bytes' end.
        byte[] bytes = write(out -> out.writeLong(Integer.MAX_VALUE - 8));
        assertThatThrownBy(() -> Binary.array(decoder(bytes), TaskSubmittedPart.CONCURRENCY_KEY))
                .isInstanceOf(java.io.EOFException.class);
        assertThatThrownBy(() -> Binary.strings(decoder(bytes))).isInstanceOf(java.io.EOFException.class);
    }

    private static <T> void check(RecordCodec<T> codec, long start) throws IOException {
        Class<T> type = codec.type();
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        RandomDatum random = new RandomDatum(start);
        ListDatumReader<T> avroReader = new ListDatumReader<>(schema, schema, ListDatumReader.readingModel(type));
        SpecificDatumWriter<T> avroWriter = new SpecificDatumWriter<>(schema, SpecificData.getForClass(type));
        GenericDatumWriter<Object> genericWriter = new GenericDatumWriter<>(schema, GenericData.get());
        Set<String> branchesSeen = new HashSet<>();
        for (int i = 0; i < INSTANCES; i++) {
            Object generic = random.of(schema);
            // The generic record becomes an instance of the generated class as Avro reads it; a map's order is
            // the instance's own, so Avro's bytes are those Avro writes for the instance.
            T record = avroReader.read(null, decoder(write(out -> genericWriter.write(generic, out))));
            byte[] avroBytes = write(out -> avroWriter.write(record, out));
            byte[] codecBytes = write(out -> codec.write(record, out));
            assertThat(codecBytes).as("instance %d of run %d, written", i, start).isEqualTo(avroBytes);
            BinaryDecoder in = decoder(avroBytes);
            T read = codec.read(in);
            assertThat(in.isEnd()).as("instance %d of run %d read to its end", i, start).isTrue();
            // Field by field with each value's equals: Avro's own equals holds no record with a NaN equal to another.
            SameRecord.same(read, avroReader.read(null, decoder(avroBytes)), "instance " + i + " of run " + start);
            branchesSeen.addAll(eventTypes(read));
        }
        assertThat(branchesSeen).as("every branch of the record's event union was drawn")
                .containsAll(eventTypes(schema));
    }

    /** The records of this class that appear as union branches of events (journal entries, assignments, inputs). */
    private static List<String> eventTypes(Schema schema) {
        Schema.Field event = schema.getField("event");
        List<String> names = new ArrayList<>();
        if (event != null) {
            event.schema().getTypes().forEach(t -> names.add(t.getFullName()));
        }
        return names;
    }

    private static List<String> eventTypes(Object record) {
        if (record instanceof JournalEntry e) {
            List<String> names = new ArrayList<>();
            names.add(e.getEvent().getClass().getName());
            e.getMore().forEach(m -> names.add(m.getEvent().getClass().getName()));
            return names;
        }
        if (record instanceof AssignmentEvent a) {
            return List.of(a.getEvent().getClass().getName());
        }
        if (record instanceof SubmissionEvent s) {
            return List.of(s.getEvent().getClass().getName());
        }
        if (record instanceof CompletionEvent c) {
            return List.of(c.getEvent().getClass().getName());
        }
        assertThat(record).isInstanceOfAny(TaskRecord.class, WorkerRecord.class);
        return List.of();
    }

    interface Writing {
        void to(BinaryEncoder out) throws IOException;
    }

    static byte[] write(Writing writing) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
        writing.to(out);
        out.flush();
        return bytes.toByteArray();
    }

    private static BinaryDecoder decoder(byte[] bytes) {
        return DecoderFactory.get().binaryDecoder(bytes, null);
    }

    @SuppressWarnings("unchecked")
    private static <T> RecordCodec<T> cast(RecordCodec<?> codec) {
        return (RecordCodec<T>) codec;
    }
}
