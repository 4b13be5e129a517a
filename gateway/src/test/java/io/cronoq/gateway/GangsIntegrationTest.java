package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Gangs through a real gateway, scheduler and broker: a gang posted to {@code /v1/gangs} becomes its members' task
 * records, which {@code GET /v1/gangs/{id}} and the task views read back — waiting with the scheduler's reason
 * while the pool has no room for all of them, then placed whole, one member per worker when spread; an id whose
 * member id another task of the pool has is refused.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GangsIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static SchedulerNode node;
    private static Inputs inputs;

    @BeforeAll
    static void start() {
        node = SchedulerNode.start(broker, broker.uniqueName("gangs") + ".", broker.uniqueName("scheduler"), 2);
        inputs = new Inputs(broker, node.app.topics());
        await().atMost(WAIT).until(() -> node.api.get("/readyz").status() == 200);
    }

    @AfterAll
    static void stop() {
        inputs.close();
        node.close();
    }

    @Test
    void aGangWaitsAsAWholeThenIsPlacedWholeAndReadsBackFromItsMembers() throws Exception {
        String pool = broker.uniqueName("train");
        Api api = node.api;
        inputs.register(pool, "gpu-0", Map.of("gpu", "a100"), 1);
        await().atMost(WAIT).until(() -> api.get("/v1/workers/gpu-0?pool=" + pool).status() == 200);

        Api.Reply posted = api.post("/v1/gangs", "{\"pool\":\"" + pool + "\",\"id\":\"run-1\",\"size\":3,"
                + "\"placement\":\"spread\",\"task\":{\"labels\":{\"gpu\":\"a100\"},\"payload\":\"hi\"}}");
        assertThat(posted.status()).as(posted.toString()).isEqualTo(202);
        assertThat(posted.json().path("members")).extracting(JsonNode::asText)
                .containsExactly("run-1-0", "run-1-1", "run-1-2");

        await().atMost(WAIT).untilAsserted(() -> {
            Api.Reply gang = api.get("/v1/gangs/run-1");
            assertThat(gang.status()).as(gang.toString()).isEqualTo(200);
            assertThat(gang.json().path("state").asText()).isEqualTo("WAITING");
            assertThat(gang.json().path("reason").asText()).as("the scheduler's reason, member 0's").isNotBlank();
        });
        JsonNode waiting = api.get("/v1/gangs/run-1?pool=" + pool).json();
        assertThat(waiting.path("pool").asText()).isEqualTo(pool);
        assertThat(waiting.path("size").asInt()).isEqualTo(3);
        assertThat(waiting.path("placement").asText()).isEqualTo("SPREAD");
        assertThat(waiting.path("members").findValuesAsText("state")).containsOnly("WAITING");
        JsonNode member = api.get("/v1/tasks/run-1-2?pool=" + pool).json();
        assertThat(member.path("gang")).isEqualTo(Api.JSON.readTree(
                "{\"id\":\"run-1\",\"size\":3,\"rank\":2,\"placement\":\"SPREAD\",\"sameLabel\":null}"));
        assertThat(api.post("/v1/gangs", "{\"pool\":\"" + pool + "\",\"id\":\"run-1\",\"size\":3,"
                + "\"placement\":\"spread\",\"task\":{\"labels\":{\"gpu\":\"a100\"},\"payload\":\"hi\"}}").status())
                .as("the same gang again is no collision").isEqualTo(202);

        inputs.register(pool, "gpu-1", Map.of("gpu", "a100"), 1);
        inputs.register(pool, "gpu-2", Map.of("gpu", "a100"), 1);
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(api.get("/v1/gangs/run-1").json().path("state").asText()).isEqualTo("RUNNING"));
        JsonNode placed = api.get("/v1/gangs/run-1").json();
        Set<String> workers = new HashSet<>(placed.path("members").findValuesAsText("workerId"));
        assertThat(workers).as("spread: one member per worker").containsExactlyInAnyOrder("gpu-0", "gpu-1", "gpu-2");
        assertThat(placed.path("members").findValuesAsText("state")).containsOnly("ASSIGNED");
        assertThat(placed.path("reason").isNull()).isTrue();
    }

    @Test
    void anIdWhoseMemberIdAnotherTaskHasIsRefusedAndAnUnknownGangIs404() {
        String pool = broker.uniqueName("solo");
        Api api = node.api;
        assertThat(api.post("/v1/tasks", "{\"pool\":\"" + pool + "\",\"id\":\"job-1\"}").status()).isEqualTo(202);
        await().atMost(WAIT).until(() -> api.get("/v1/tasks/job-1?pool=" + pool).status() == 200);

        Api.Reply refused = api.post("/v1/gangs", "{\"pool\":\"" + pool + "\",\"id\":\"job\",\"size\":2,\"task\":{}}");

        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.json().path("error").path("field").asText()).isEqualTo("id");
        assertThat(refused.json().path("error").path("message").asText())
                .contains("task job-1 already exists in pool " + pool);
        assertThat(api.get("/v1/gangs/job").status()).as("job-0 is no task").isEqualTo(404);
    }
}
