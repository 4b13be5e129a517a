package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.cronoq.events.TaskRecord;
import org.junit.jupiter.api.Test;

class TopicsTest {

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();

    @Test
    void defaultNamesUseTheCronoqPrefix() {
        Topics topics = Topics.defaults(registry);

        assertThat(List.of(topics.submissions(), topics.workers(), topics.completions(), topics.assignments(),
                topics.journal(), topics.deadLetters()))
                .extracting(Topic::name)
                .containsExactly("cronoq.submissions", "cronoq.workers", "cronoq.completions", "cronoq.assignments",
                        "cronoq.journal", "cronoq.dead-letters");
        assertThat(topics.schemas()).isEqualTo("cronoq._schemas");
    }

    @Test
    void anotherPrefixRenamesEveryTopic() {
        Topics topics = Topics.withPrefix("test-7.", registry);

        assertThat(topics.all()).extracting(TopicSpec::name).allMatch(name -> name.startsWith("test-7."))
                .contains("test-7.journal", "test-7._schemas");
    }

    @Test
    void illegalPrefixIsRejectedWithTheRule() {
        assertThatThrownBy(() -> Topics.withPrefix("my topics/", registry))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cronoq.topic.prefix").hasMessageContaining("letters, digits");
    }

    @Test
    void topicSerdesMatchTheirEventTypes() {
        Topics topics = Topics.defaults(registry);

        assertThat(((AvroSerde<?>) topics.submissions().valueSerde()).type().getSimpleName())
                .isEqualTo("SubmissionEvent");
        assertThat(((AvroSerde<?>) topics.deadLetters().valueSerde()).type().getSimpleName()).isEqualTo("DeadLetter");
        assertThat(topics.assignments().keySerde().serializer().serialize("t", "worker-1"))
                .isEqualTo("worker-1".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void serdeHelperGivesOneSerdePerClass() {
        Topics topics = Topics.defaults(registry);

        AvroSerde<TaskRecord> serde = topics.serde(TaskRecord.class);

        assertThat(topics.serde(TaskRecord.class)).isSameAs(serde);
        assertThat(serde.type()).isEqualTo(TaskRecord.class);
    }

    @Test
    void recommendedSpecsCoPartitionTheInputsAndCompactTheSchemas() {
        List<TopicSpec> specs = Topics.defaults(registry).all(12);

        assertThat(specs).filteredOn(s -> !s.name().endsWith("_schemas")).allMatch(s -> s.partitions() == 12)
                .allMatch(s -> "delete".equals(s.configs().get("cleanup.policy")));
        assertThat(specs).filteredOn(s -> s.name().equals("cronoq._schemas")).singleElement()
                .satisfies(s -> {
                    assertThat(s.partitions()).isEqualTo(1);
                    assertThat(s.configs()).containsEntry("cleanup.policy", "compact");
                });
        assertThat(specs).filteredOn(s -> s.name().equals("cronoq.journal")).singleElement()
                .satisfies(s -> assertThat(s.configs()).containsKey("retention.ms"));
        assertThat(specs.get(0).toNewTopic().numPartitions()).isEqualTo(12);
    }
}
