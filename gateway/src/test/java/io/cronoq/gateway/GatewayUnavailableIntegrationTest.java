package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.topology.SchedulerTopology;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Files;
import io.javalin.Javalin;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A gateway whose scheduler's stores cannot be queried (Kafka Streams created but not running, as
 * while it starts or restores) answers every read with 503 UNAVAILABLE and a retry hint — never a
 * stack trace — is not ready, is still alive, and still accepts submissions onto the topic.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GatewayUnavailableIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static SchemaRegistry registry;
    private static Topics topics;
    private static KafkaStreams streams;
    private static GatewayServer gateway;
    private static Api api;

    @BeforeAll
    static void start() throws Exception {
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                SchedulerConfig.TOPIC_PREFIX.name(), broker.uniqueName("down") + ".",
                SchedulerConfig.APPLICATION_ID.name(), broker.uniqueName("scheduler"),
                SchedulerConfig.STATE_DIR.name(), Files.createTempDirectory("cronoq-down").toString(),
                SchedulerConfig.PARTITIONS.name(), "2"));
        registry = SchedulerApp.registry(config);
        topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
        TopicSetup.ensure(config, topics);
        streams = new KafkaStreams(SchedulerTopology.build(topics), SchedulerApp.streamsProperties(config));
        gateway = GatewayServer.start(streams, config, topics, 0, Clock.systemUTC());
        api = new Api(gateway.url());
    }

    @AfterAll
    static void stop() {
        gateway.close();
        streams.close();
        registry.close();
    }

    @Test
    void everyReadIs503UnavailableWithRetryAfterAndNoStackTrace() {
        for (String path : new String[] {"/v1/snapshot", "/v1/snapshot?pool=p", "/v1/tasks", "/v1/tasks/t1",
                "/v1/tasks?pool=p&state=WAITING", "/v1/workers", "/v1/workers/w1"}) {
            Api.Reply reply = api.get(path);

            assertThat(reply.status()).as(path + " " + reply).isEqualTo(503);
            assertThat(reply.header("Retry-After")).as(path).isEqualTo("1");
            assertThat(reply.json().path("error").path("code").asText()).isEqualTo("UNAVAILABLE");
            assertThat(reply.json().path("error").path("message").asText()).as(path).contains("not RUNNING");
            assertThat(reply.text()).doesNotContain("Exception").doesNotContain("\tat ");
        }
    }

    @Test
    void cancelAndDrainNeedTheStateSoTheyAre503Too() {
        assertThat(api.delete("/v1/tasks/t1").status()).isEqualTo(503);
        assertThat(api.post("/v1/workers/w1/drain", "").status()).isEqualTo(503);
    }

    @Test
    void notReadyButAlive() {
        Api.Reply ready = api.get("/readyz");

        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.header("Retry-After")).isEqualTo("1");
        assertThat(ready.json().path("error").path("message").asText()).contains("CREATED");
        assertThat(api.get("/healthz").status()).isEqualTo(200);
        assertThat(api.get("/metrics").status()).isEqualTo(200);
    }

    @Test
    void submissionThatCannotReachKafkaIs503AndNothingIsAccepted() {
        try (KafkaCommands unreachable = new KafkaCommands(Map.of("bootstrap.servers", "127.0.0.1:1"), topics,
                Duration.ofSeconds(1))) {
            Javalin app = Gateway.create(new GatewayContext(new NoState(), new NoState(), unreachable, registry, () -> "",
                    Clock.systemUTC())).start(0);
            try {
                Api.Reply reply = new Api("http://localhost:" + app.port()).post("/v1/tasks", "{\"pool\":\"p\"}");

                assertThat(reply.status()).as(reply.toString()).isEqualTo(503);
                assertThat(reply.header("Retry-After")).isEqualTo("1");
                assertThat(reply.json().path("error").path("message").asText()).contains("nothing was accepted");
            } finally {
                app.stop();
            }
        }
    }

    @Test
    void submissionsAreStillAcceptedOntoTheTopic() {
        Api.Reply accepted = api.post("/v1/tasks", "{\"pool\":\"p\",\"id\":\"queued\"}");

        assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        assertThat(accepted.json().path("id").asText()).isEqualTo("queued");
    }
}
