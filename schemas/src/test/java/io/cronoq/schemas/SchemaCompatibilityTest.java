package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.cronoq.events.TaskSubmitted;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every schema of today reads data written by every released version of itself. Released versions live in
 * {@code src/test/resources/released/v<n>/} as .avsc files; releasing a version = copying the schemas there, no code.
 */
class SchemaCompatibilityTest {

    @TestFactory
    Stream<DynamicTest> currentSchemasReadEveryReleasedVersion() throws IOException, URISyntaxException {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path versionDir : ReleasedSchemas.versions()) {
            Map<String, Schema> released = ReleasedSchemas.parseAll(versionDir);
            released.forEach((name, writer) -> tests.add(DynamicTest.dynamicTest(
                    versionDir.getFileName() + " " + name, () -> {
                        Schema reader = current(name);
                        assertThat(incompatibilities(reader, writer))
                                .as("today's %s must read data written by released %s", name, versionDir.getFileName())
                                .isEmpty();
                    })));
        }
        return tests.stream();
    }

    @Test
    void releasedVersionsAreFound() throws IOException, URISyntaxException {
        List<Path> versions = ReleasedSchemas.versions();

        assertThat(versions).extracting(p -> p.getFileName().toString()).contains("v1");
        Map<String, Schema> v1 = ReleasedSchemas.parseAll(versions.get(0));
        assertThat(v1).containsKeys("io.cronoq.events.SubmissionEvent", "io.cronoq.events.JournalEntry",
                "io.cronoq.events.TaskRecord");
        // References across files are resolved: the envelope's branches are full records.
        Schema firstBranch = v1.get("io.cronoq.events.SubmissionEvent").getField("event").schema().getTypes().get(0);
        assertThat(firstBranch.getFields()).extracting(Schema.Field::name).contains("taskId", "pool");
    }

    @Test
    void addingAFieldWithoutADefaultIsCaught() throws IOException, URISyntaxException {
        Schema releasedTask = ReleasedSchemas.parseAll(ReleasedSchemas.versions().get(0)).get(TaskSubmitted.getClassSchema().getFullName());

        Schema withRequiredField = withExtraField(TaskSubmitted.getClassSchema(), "costCentre", null);
        Schema withDefaultedField = withExtraField(TaskSubmitted.getClassSchema(), "costCentre", "none");

        assertThat(incompatibilities(withRequiredField, releasedTask))
                .singleElement().asString().contains("READER_FIELD_MISSING_DEFAULT").contains("costCentre");
        assertThat(incompatibilities(withDefaultedField, releasedTask)).isEmpty();
    }

    private static List<String> incompatibilities(Schema reader, Schema writer) {
        SchemaCompatibility.SchemaPairCompatibility result =
                SchemaCompatibility.checkReaderWriterCompatibility(reader, writer);
        if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
            return List.of();
        }
        return result.getResult().getIncompatibilities().stream()
                .map(i -> i.getType() + " at " + i.getLocation() + ": " + i.getMessage()).toList();
    }

    /** Today's schema of a released type, from its generated class; a released type that vanished fails here. */
    private static Schema current(String fullName) throws ClassNotFoundException {
        return SpecificData.get().getSchema(Class.forName(fullName));
    }

    private static Schema withExtraField(Schema record, String name, Object defaultValue) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field field : record.getFields()) {
            fields.add(new Schema.Field(field, field.schema()));
        }
        fields.add(new Schema.Field(name, Schema.create(Schema.Type.STRING), null, defaultValue));
        return Schema.createRecord(record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }
}
