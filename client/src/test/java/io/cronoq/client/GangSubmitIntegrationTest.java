package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.GangSubmitted;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CronoqClient#submit(Gang)} on a real broker: one record on the submissions topic, keyed by pool, holding every member. */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GangSubmitIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @Test
    void aGangIsOneRecordOfItsPoolHoldingEveryMember() throws Exception {
        String prefix = broker.uniqueName("gang") + ".";
        broker.createTopics(2, prefix + "submissions");
        Gang gang = Gang.of(4, Task.of("hi").label("gpu", "a100")).pool("train").id("run-1").build();

        try (CronoqClient client = CronoqClient.builder(broker.bootstrapServers()).topicPrefix(prefix).build()) {
            assertThat(client.submit(gang).get(60, TimeUnit.SECONDS)).isEqualTo("run-1");
        }

        List<ConsumerRecord<String, byte[]>> records = readAll(prefix + "submissions");
        assertThat(records).hasSize(1);
        assertThat(records.get(0).key()).isEqualTo("train");
        try (SchemaRegistry registry = SchemaRegistries.fromConfig(Map.of("bootstrap.servers",
                broker.bootstrapServers(), Topics.PREFIX_CONFIG, prefix))) {
            Topic<String, SubmissionEvent> submissions = Topics.withPrefix(prefix, registry).submissions();
            SubmissionEvent event = submissions.valueSerde().deserializer().deserialize(submissions.name(),
                    records.get(0).value());
            assertThat(event.getEvent()).isInstanceOfSatisfying(GangSubmitted.class, sent -> {
                assertThat(sent.getGangId()).isEqualTo("run-1");
                assertThat(sent.getMembers()).extracting(TaskSubmitted::getTaskId)
                        .containsExactly("run-1-0", "run-1-1", "run-1-2", "run-1-3");
                assertThat(sent).isEqualTo(gang.toEvent());
            });
        }
    }

    private static List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        Map<String, Object> config = broker.consumerProps(broker.uniqueName("reader"));
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // Read for a while after the first record: a second one would show within it.
            while (System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
