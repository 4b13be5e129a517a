package io.cronoq.schemas.codec;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.TaskRecord;
import java.io.IOException;
import java.util.LinkedList;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.junit.jupiter.api.Test;

/** The comparison the codec tests rest on finds a difference anywhere in a record and names where. */
class SameRecordTest {

    private final byte[] bytes = randomTaskRecord();

    @Test
    void twoReadingsOfTheSameBytesAreTheSame() {
        assertThatCode(() -> SameRecord.same(read(), read(), "r")).doesNotThrowAnyException();
    }

    @Test
    void aNestedFieldThatDiffersIsNamed() {
        TaskRecord expected = read();
        TaskRecord other = read();
        other.getTask().setTaskId(expected.getTask().getTaskId() + "-2");
        assertThatThrownBy(() -> SameRecord.same(other, expected, "r")).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("r.task.taskId: " + expected.getTask().getTaskId() + "-2 where Avro reads ");

        TaskRecord labels = read();
        labels.getTask().setLabels(Map.of("gpu", "h100"));
        expected.getTask().setLabels(Map.of("gpu", "a100"));
        assertThatThrownBy(() -> SameRecord.same(labels, expected, "r")).hasMessageStartingWith("r.task.labels[gpu]");
    }

    @Test
    void theSameValuesInAnotherClassDiffer() {
        TaskRecord expected = read();
        TaskRecord other = read();
        other.setAttempts(new LinkedList<>(expected.getAttempts()));
        assertThatThrownBy(() -> SameRecord.same(other, expected, "r"))
                .hasMessageStartingWith("r.attempts: a java.util.LinkedList where Avro reads a ");
    }

    private TaskRecord read() {
        Schema schema = TaskRecord.getClassSchema();
        try {
            return new ListDatumReader<TaskRecord>(schema, schema, ListDatumReader.readingModel(TaskRecord.class))
                    .read(null, DecoderFactory.get().binaryDecoder(bytes, null));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] randomTaskRecord() {
        Schema schema = TaskRecord.getClassSchema();
        try {
            return CodecsTest.write(out -> new GenericDatumWriter<>(schema, GenericData.get())
                    .write(new RandomDatum(7).of(schema), out));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
