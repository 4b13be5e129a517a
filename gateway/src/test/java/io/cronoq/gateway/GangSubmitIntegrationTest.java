package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.GangSubmitted;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import io.javalin.Javalin;
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

/**
 * {@code POST /v1/gangs} through the gateway's own Kafka writer to a real broker: one record on the submissions
 * topic, keyed by the pool, holding every member with its id and tenant; a refused gang writes nothing.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GangSubmitIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @Test
    void aGangIsOneRecordOfItsPoolHoldingEveryMember() {
        String prefix = broker.uniqueName("gangs") + ".";
        InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
        Topics topics = Topics.withPrefix(prefix, registry);
        broker.createTopics(2, topics.submissions().name());
        MemoryState state = new MemoryState(TestGateway.NOW.toString());
        try (KafkaCommands commands = new KafkaCommands(Map.of("bootstrap.servers", broker.bootstrapServers()), topics,
                Duration.ofSeconds(30))) {
            Javalin app = Gateway.create(TestGateway.context(Credentials.none(), state, commands)).start(0);
            try {
                Api api = new Api("http://localhost:" + app.port());
                Api.Reply refused = api.post("/v1/gangs", "{\"pool\":\"train\",\"id\":\"bad\",\"size\":0,\"task\":{}}");
                Api.Reply accepted = api.post("/v1/gangs", """
                        {"pool":"train","id":"run-1","size":3,"task":{"tenant":"research","payload":"hi"}}""");

                assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
                assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
            } finally {
                app.stop();
            }
        }

        List<ConsumerRecord<String, byte[]>> records = readAll(topics.submissions().name());
        assertThat(records).hasSize(1);
        assertThat(records.get(0).key()).isEqualTo("train");
        Topic<String, SubmissionEvent> submissions = topics.submissions();
        SubmissionEvent event = submissions.valueSerde().deserializer().deserialize(submissions.name(),
                records.get(0).value());
        assertThat(event.getEvent()).isInstanceOfSatisfying(GangSubmitted.class, gang -> {
            assertThat(gang.getGangId()).isEqualTo("run-1");
            assertThat(gang.getPool()).isEqualTo("train");
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTaskId)
                    .containsExactly("run-1-0", "run-1-1", "run-1-2");
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTenant).containsOnly("research");
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getPool).containsOnly("train");
        });
    }

    private static List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(broker.consumerProps(
                broker.uniqueName("reader")), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            // Read for a while: a second record would show within it.
            while (System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
