package io.cronoq.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.TaskWaiting;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

/**
 * Records written entry by entry as they are gathered are the bytes Avro's writer writes for the whole record, for
 * thousands of random journal and assignments records (every event branch, nulls, no further entries and
 * hundreds), and a failed entry leaves the writer able to write the next record.
 */
class GatheredBodiesTest {

    private static final int INSTANCES = 1_000;
    private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");

    private final GatheredBodies bodies = new GatheredBodies();

    @Test
    void aJournalRecordGatheredEntryByEntryIsAvrosBytesOfTheWholeRecord() throws IOException {
        RandomRecords<JournalEntry> random = new RandomRecords<>(JournalEntry.class, 7);
        Set<Class<?>> drawn = new HashSet<>();
        for (int i = 0; i < INSTANCES; i++) {
            JournalEntry entry = random.next();
            drawn.add(entry.getEvent().getClass());
            GatheredBodies.Body body = bodies.journal(entry.getPool(), entry.getAt(), entry.getEvent(), entry.getCause(),
                    entry.getHeardAt());
            for (JournalItem item : entry.getMore()) {
                bodies.journalItem(body, item.getEvent(), item.getCause(), item.getAt(), item.getHeardAt());
                drawn.add(item.getEvent().getClass());
            }
            assertThat(bodies.finishJournal(body)).as("%s", entry).isEqualTo(avro(entry));
        }
        assertThat(drawn).as("every event of the union drawn").hasSize(eventBranches(JournalEntry.class));
    }

    @Test
    void anAssignmentsRecordGatheredEventByEventIsAvrosBytesOfTheWholeRecord() throws IOException {
        RandomRecords<AssignmentEvent> random = new RandomRecords<>(AssignmentEvent.class, 11);
        Set<Class<?>> drawn = new HashSet<>();
        for (int i = 0; i < INSTANCES; i++) {
            AssignmentEvent record = random.next();
            drawn.add(record.getEvent().getClass());
            GatheredBodies.Body body = bodies.assignments(record.getEvent());
            for (Object event : record.getMore()) {
                bodies.assignment(body, event);
                drawn.add(event.getClass());
            }
            assertThat(bodies.finishAssignments(body)).as("%s", record).isEqualTo(avro(record));
        }
        assertThat(drawn).as("every event of the union drawn").hasSize(eventBranches(AssignmentEvent.class));
    }

    private static int eventBranches(Class<?> type) {
        return SpecificData.getForClass(type).getSchema(type).getField("event").schema().getTypes().size();
    }

    @Test
    void anEntryThatCannotBeWrittenIsRefusedAndTheNextRecordIsWhole() throws IOException {
        GatheredBodies.Body body = bodies.journal("pool-a", T0, new TaskWaiting("t-1", "busy"), null, null);
        assertThatThrownBy(() -> bodies.journalItem(body, new TaskWaiting(null, "busy"), "why", T0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("cannot write a journal or assignments entry: ")
                .hasMessageContaining("TaskWaiting.taskId");

        JournalEntry next = new JournalEntry("pool-b", T0, new TaskWaiting("t-2", "busy"), "cause",
                new ArrayList<>(List.of(new JournalItem(new TaskWaiting("t-3", "idle"), null, null, null))),
                T0.plusMillis(4));
        GatheredBodies.Body whole = bodies.journal("pool-b", T0, next.getEvent(), "cause", T0.plusMillis(4));
        bodies.journalItem(whole, new TaskWaiting("t-3", "idle"), null, null, null);
        assertThat(bodies.finishJournal(whole)).isEqualTo(avro(next));
    }

    /** Random records of a class, one at a time, as Avro reads them from random generic data of its schema. */
    private static final class RandomRecords<T> {
        private final Schema schema;
        private final RandomDatum random;
        private final GenericDatumWriter<Object> genericWriter;
        private final ListDatumReader<T> reader;

        RandomRecords(Class<T> type, long start) {
            schema = SpecificData.getForClass(type).getSchema(type);
            random = new RandomDatum(start);
            genericWriter = new GenericDatumWriter<>(schema, GenericData.get());
            reader = new ListDatumReader<>(schema, schema, ListDatumReader.readingModel(type));
        }

        T next() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            genericWriter.write(random.of(schema), encoder);
            encoder.flush();
            return reader.read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> byte[] avro(T record) throws IOException {
        Class<T> type = (Class<T>) record.getClass();
        SpecificDatumWriter<T> writer = new SpecificDatumWriter<>(type);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        writer.write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
