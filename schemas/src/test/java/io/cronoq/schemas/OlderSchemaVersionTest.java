package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Map;

import io.cronoq.events.Priority;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** Given a record written by an older ("v0") schema, when today's code reads it, then new fields get their defaults. */
class OlderSchemaVersionTest {

    /** SubmissionEvent as it might have looked before: a TaskSubmitted with only id, pool, labels and time. */
    private static final Schema V0 = new Schema.Parser().parse("""
            {"type": "record", "name": "SubmissionEvent", "namespace": "io.cronoq.events", "fields": [
              {"name": "event", "type": [
                {"type": "record", "name": "TaskSubmitted", "fields": [
                  {"name": "taskId", "type": "string"},
                  {"name": "pool", "type": "string"},
                  {"name": "labels", "type": {"type": "map", "values": "string"}, "default": {}},
                  {"name": "submittedAt", "type": {"type": "long", "logicalType": "timestamp-millis"}}
                ]}
              ]}
            ]}""");

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();

    @Test
    void recordWrittenByAnOlderSchemaIsReadByTodaysClassWithDefaults() throws IOException {
        String topic = "cronoq.submissions";
        int v0Id = registry.register(topic + "-value", V0);
        byte[] v0Bytes = confluentBytes(v0Id, v0Record());

        SubmissionEvent read = AvroSerde.of(SubmissionEvent.class, registry).deserialize(topic, v0Bytes);

        TaskSubmitted task = (TaskSubmitted) read.getEvent();
        assertThat(task.getTaskId()).isEqualTo("t-1");
        assertThat(task.getPool()).isEqualTo("gpu");
        assertThat(task.getLabels()).containsEntry("gpu", "a100");
        assertThat(task.getSubmittedAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(task.getPriority()).isEqualTo(Priority.NORMAL);
        assertThat(task.getPreferences()).isEmpty();
        assertThat(task.getPayload()).isEqualTo(ByteBuffer.wrap(new byte[0]));
        assertThat(task.getResources()).isNull();
    }

    @Test
    void bothVersionsAreListedUnderTheSubjectInOrder() {
        String subject = "cronoq.submissions-value";
        int v0Id = registry.register(subject, V0);
        AvroSerde.of(SubmissionEvent.class, registry).serialize("cronoq.submissions",
                SampleRecords.everyBranchOf(SubmissionEvent.class).get(0));

        assertThat(registry.versions(subject)).containsExactly(1, 2);
        assertThat(registry.version(subject, 1)).hasValueSatisfying(v -> assertThat(v.id()).isEqualTo(v0Id));
        assertThat(registry.latest(subject)).hasValueSatisfying(
                v -> assertThat(v.schema()).isEqualTo(SubmissionEvent.getClassSchema()));
    }

    private static GenericRecord v0Record() {
        Schema taskSchema = V0.getField("event").schema().getTypes().get(0);
        GenericRecord task = new GenericData.Record(taskSchema);
        task.put("taskId", "t-1");
        task.put("pool", "gpu");
        task.put("labels", Map.of("gpu", "a100"));
        task.put("submittedAt", 1_700_000_000_000L);
        GenericRecord envelope = new GenericData.Record(V0);
        envelope.put("event", task);
        return envelope;
    }

    private static byte[] confluentBytes(int schemaId, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
