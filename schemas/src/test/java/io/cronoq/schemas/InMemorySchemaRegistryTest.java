package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskRecord;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class InMemorySchemaRegistryTest {

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();

    @Test
    void registeringTheSameSchemaTwiceGivesTheSameIdAndOneVersion() {
        int first = registry.register("s-value", SubmissionEvent.getClassSchema());
        int second = registry.register("s-value", SubmissionEvent.getClassSchema());

        assertThat(second).isEqualTo(first).isEqualTo(SchemaIds.idOf(SubmissionEvent.getClassSchema()));
        assertThat(registry.versions("s-value")).containsExactly(1);
    }

    @Test
    void theSameSchemaUnderTwoSubjectsKeepsOneId() {
        int a = registry.register("a-value", TaskRecord.getClassSchema());
        int b = registry.register("b-value", TaskRecord.getClassSchema());

        assertThat(a).isEqualTo(b);
        assertThat(registry.subjects()).containsExactly("a-value", "b-value");
    }

    @Test
    void idsResolveAndUnknownIdsAreEmpty() {
        int id = registry.register("c-value", CompletionEvent.getClassSchema());

        assertThat(registry.byId(id)).contains(CompletionEvent.getClassSchema());
        assertThat(registry.byId(id + 1)).isEmpty();
    }

    @Test
    void unknownSubjectsAndVersionsAreEmpty() {
        registry.register("c-value", CompletionEvent.getClassSchema());

        assertThat(registry.versions("nope")).isEmpty();
        assertThat(registry.latest("nope")).isEmpty();
        assertThat(registry.version("c-value", 2)).isEmpty();
        assertThat(registry.version("c-value", 0)).isEmpty();
    }

    @Test
    void idsSurviveATextRoundTripSoEveryProcessComputesTheSame() {
        for (Schema schema : new Schema[] {SubmissionEvent.getClassSchema(), TaskRecord.getClassSchema()}) {
            Schema reparsed = new Schema.Parser().parse(schema.toString());

            assertThat(SchemaIds.idOf(reparsed)).isEqualTo(SchemaIds.idOf(schema)).isNotNegative();
        }
    }

    @Test
    void schemasDifferingOnlyInADefaultGetDifferentIds() {
        Schema withoutDefault = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}");
        Schema withDefault = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\",\"default\":1}]}");

        assertThat(SchemaIds.idOf(withDefault)).isNotEqualTo(SchemaIds.idOf(withoutDefault));
    }

    @Test
    void anIdBoundToAnotherSchemaFailsLoudly() {
        SchemaCatalog catalog = new SchemaCatalog();
        catalog.add("a-value", 42, SubmissionEvent.getClassSchema());

        assertThatThrownBy(() -> catalog.add("b-value", 42, CompletionEvent.getClassSchema()))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("collision").hasMessageContaining("42").hasMessageContaining("b-value");
        assertThat(catalog.byId(42)).contains(SubmissionEvent.getClassSchema());
        assertThat(catalog.subjects()).containsExactly("a-value");
    }
}
