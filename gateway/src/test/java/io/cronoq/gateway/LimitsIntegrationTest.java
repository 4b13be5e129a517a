package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Concurrency keys and rate limits through a real gateway, scheduler and broker: an admin limits a key and defines
 * a rate limit, tasks naming them run up to those limits and the rest wait with the scheduler's reason, and what
 * the scheduler made of it reads back from {@code /v1/limits}, the snapshot, the task and the metrics; raising the
 * key's limit starts the task it held back, and removing the rate limit leaves its task waiting for a definition.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LimitsIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Credentials TOKENS = Credentials.of(List.of(
            credential("admin", Role.ADMIN),
            credential("batch", Role.SUBMITTER),
            credential("viewer", Role.VIEWER)));

    private static SchedulerNode node;
    private static Inputs inputs;

    @BeforeAll
    static void start() {
        node = SchedulerNode.withGatewayTokens(broker, broker.uniqueName("limits") + ".",
                broker.uniqueName("scheduler"), 3, TOKENS);
        inputs = new Inputs(broker, node.app.topics());
        await().atMost(Duration.ofSeconds(60)).until(() -> node.api.get("/readyz").status() == 200);
    }

    @AfterAll
    static void stop() {
        inputs.close();
        node.close();
    }

    @Test
    void aKeysLimitAndARateLimitSetByAnAdminHoldTasksBackWithTheirReasons() throws Exception {
        Api admin = as("admin");
        Api batch = as("batch");
        String pool = broker.uniqueName("limited");
        inputs.register(pool, "cpu-1", Map.of(), 4);
        await().atMost(WAIT).until(() -> admin.get("/v1/workers/cpu-1?pool=" + pool).status() == 200);

        Api.Reply key = admin.put("/v1/pools/" + pool + "/limits/keys", "{\"key\":\"customer-42\",\"max\":1}");
        Api.Reply rate = admin.put("/v1/pools/" + pool + "/limits/rates/openai", "{\"perSecond\":0.001,\"burst\":1}");
        assertThat(key.status()).as(key.toString()).isEqualTo(202);
        assertThat(key.json().path("kind").asText()).isEqualTo("CONCURRENCY_KEY");
        assertThat(key.json().path("setBy").asText()).isEqualTo("admin");
        assertThat(rate.status()).as(rate.toString()).isEqualTo(202);
        // In order on the pool's partition, after the limits: k1 takes the key, r1 the one unit.
        String keyed = ",\"concurrency\":[{\"key\":\"customer-42\"}]";
        String rated = ",\"rateLimits\":[{\"name\":\"openai\"}]";
        submit(batch, pool, "k1", keyed);
        submit(batch, pool, "k2", keyed);
        submit(batch, pool, "r1", rated);
        submit(batch, pool, "r2", rated);
        submit(batch, pool, "u1", ",\"rateLimits\":[{\"name\":\"undefined\",\"units\":2}]");

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(state(admin, pool, "k1")).isEqualTo("ASSIGNED");
            assertThat(state(admin, pool, "r1")).isEqualTo("ASSIGNED");
            assertThat(reason(admin, pool, "k2")).isEqualTo("concurrency key customer-42: 1/1 running");
            assertThat(reason(admin, pool, "r2")).startsWith("rate limit openai: 0 of 0.001/s left, next in ");
            assertThat(reason(admin, pool, "u1")).isEqualTo("rate limit undefined is not defined in pool " + pool
                    + ": the task waits until an admin defines it");
        });

        JsonNode limits = admin.get("/v1/limits?pool=" + pool).json().path("pools").get(0);
        assertThat(limits.path("pool").asText()).isEqualTo(pool);
        assertThat(limits.path("keysTotal").asInt()).isEqualTo(1);
        assertThat(limits.path("heldBackByKeys").asLong()).isEqualTo(1);
        assertThat(limits.path("heldBackByRates").asLong()).isEqualTo(2);
        JsonNode customer = limits.path("keys").get(0);
        assertThat(customer.path("key").asText()).isEqualTo("customer-42");
        assertThat(List.of(customer.path("limit").asInt(), customer.path("running").asInt(),
                customer.path("inForce").asInt(), customer.path("heldBack").asInt())).containsExactly(1, 1, 1, 1);
        assertThat(customer.path("atLimit").asBoolean()).isTrue();
        assertThat(limits.path("rates").findValuesAsText("name")).containsExactly("openai", "undefined");
        JsonNode openai = limits.path("rates").get(0);
        assertThat(openai.path("defined").asBoolean()).isTrue();
        assertThat(openai.path("perSecond").asDouble()).isEqualTo(0.001);
        assertThat(openai.path("burst").asInt()).isEqualTo(1);
        assertThat(openai.path("available").asDouble()).as("r1 took the one unit").isLessThan(1.0);
        assertThat(openai.path("heldBack").asLong()).isEqualTo(1);
        assertThat(limits.path("rates").get(1).path("defined").asBoolean()).isFalse();
        assertThat(limits.path("rates").get(1).path("heldBack").asLong()).isEqualTo(1);
        assertThat(poolOf(as("viewer").get("/v1/limits").json(), pool).path("keysTotal").asInt())
                .as("every pool's answer holds it too").isEqualTo(1);

        JsonNode task = admin.get("/v1/tasks/k2?pool=" + pool).json();
        assertThat(task.path("concurrency")).isEqualTo(Api.JSON.readTree("[{\"key\":\"customer-42\",\"max\":null}]"));
        assertThat(admin.get("/v1/tasks/u1?pool=" + pool).json().path("rateLimits"))
                .isEqualTo(Api.JSON.readTree("[{\"name\":\"undefined\",\"units\":2}]"));

        JsonNode snapshot = admin.get("/v1/snapshot?pool=" + pool).json().path("pools").get(0);
        assertThat(snapshot.path("heldByLimits").asLong()).isEqualTo(3);
        assertThat(snapshot.path("demand").asLong()).as("the held back are no demand").isEqualTo(2);
        assertThat(snapshot.path("unservable").asLong()).isZero();
        assertThat(snapshot.path("limits").path("keys").get(0).path("key").asText()).isEqualTo("customer-42");
        assertThat(snapshot.path("classesTotal").asInt()).isEqualTo(3);
        assertThat(snapshot.path("classes").findValuesAsText("limits")).containsExactlyInAnyOrder(
                "concurrency customer-42", "rate openai x1", "rate undefined x2");
        assertThat(snapshot.path("classes").findValuesAsText("heldByLimit")).containsOnly("true");

        String metrics = admin.get("/metrics").text();
        String customerKey = "key=\"customer-42\",pool=\"" + pool + "\"";
        assertThat(value(metrics, "cronoq_concurrency_key_limit", customerKey)).isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_concurrency_key_running", customerKey)).isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_concurrency_keys_at_limit", "pool=\"" + pool + "\"")).isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_concurrency_held_back", "pool=\"" + pool + "\"")).isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_rate_limit_burst", "name=\"openai\",pool=\"" + pool + "\"")).isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_rate_limit_held_back", "name=\"undefined\",pool=\"" + pool + "\""))
                .isEqualTo(1.0);
        assertThat(value(metrics, "cronoq_pool_held_by_limits", "pool=\"" + pool + "\"")).isEqualTo(3.0);

        // The key's limit raised: k2 starts. The rate limit removed: r2 waits for it to be defined again.
        assertThat(admin.put("/v1/pools/" + pool + "/limits/keys", "{\"key\":\"customer-42\",\"max\":2}").status())
                .isEqualTo(202);
        assertThat(admin.delete("/v1/pools/" + pool + "/limits/rates/openai").status()).isEqualTo(202);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(state(admin, pool, "k2")).isEqualTo("ASSIGNED");
            assertThat(reason(admin, pool, "r2")).startsWith("rate limit openai is not defined in pool " + pool);
            JsonNode after = admin.get("/v1/limits?pool=" + pool).json().path("pools").get(0);
            assertThat(after.path("keys").get(0).path("running").asInt()).isEqualTo(2);
            assertThat(after.path("keys").get(0).path("limit").asInt()).isEqualTo(2);
            assertThat(after.path("rates").get(0).path("defined").asBoolean()).isFalse();
        });
    }

    @Test
    void onlyAnAdminSetsLimitsAndABrokenRuleIsRefused() {
        String pool = broker.uniqueName("refused");
        inputs.register(pool, "cpu-1", Map.of(), 1);
        await().atMost(WAIT).until(() -> as("admin").get("/v1/workers/cpu-1?pool=" + pool).status() == 200);

        Api.Reply notAdmin = as("batch").put("/v1/pools/" + pool + "/limits/keys", "{\"key\":\"a\",\"max\":1}");
        Api.Reply viewer = as("viewer").delete("/v1/pools/" + pool + "/limits/rates/openai");
        Api.Reply none = as("none").put("/v1/pools/" + pool + "/limits/rates/openai", "{\"perSecond\":1}");
        Api.Reply invalid = as("admin").put("/v1/pools/" + pool + "/limits/rates/openai", "{\"perSecond\":0}");
        Api.Reply badTask = as("batch").post("/v1/tasks",
                "{\"pool\":\"%s\",\"concurrency\":[{\"key\":\"a\",\"max\":0}]}".formatted(pool));

        assertThat(notAdmin.status()).as(notAdmin.toString()).isEqualTo(403);
        assertThat(viewer.status()).as(viewer.toString()).isEqualTo(403);
        assertThat(none.status()).as(none.toString()).isEqualTo(401);
        assertThat(invalid.status()).as(invalid.toString()).isEqualTo(400);
        assertThat(invalid.json().path("error").path("field").asText()).isEqualTo("perSecond");
        assertThat(badTask.status()).as(badTask.toString()).isEqualTo(400);
        assertThat(badTask.json().path("error").path("field").asText()).isEqualTo("concurrency[0].max");
        assertThat(as("admin").get("/v1/limits?pool=" + pool).json().path("pools").get(0).path("rates")).isEmpty();
    }

    private static Api as(String who) {
        return who.equals("none") ? node.api : node.api.withToken(secret(who));
    }

    private static void submit(Api api, String pool, String id, String fields) {
        Api.Reply reply = api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"%s\"%s}".formatted(pool, id, fields));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
    }

    private static String state(Api api, String pool, String id) {
        return api.get("/v1/tasks/" + id + "?pool=" + pool).json().path("state").asText();
    }

    private static String reason(Api api, String pool, String id) {
        JsonNode task = api.get("/v1/tasks/" + id + "?pool=" + pool).json();
        assertThat(task.path("state").asText()).as(id).isEqualTo("WAITING");
        return task.path("waiting").path("reason").asText();
    }

    private static JsonNode poolOf(JsonNode answer, String pool) {
        for (JsonNode p : answer.path("pools")) {
            if (p.path("pool").asText().equals(pool)) {
                return p;
            }
        }
        throw new AssertionError("no pool " + pool + " in " + answer);
    }

    /** The value of one Prometheus sample, or null when absent. */
    private static Double value(String metrics, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{" + Pattern.quote(labels) + "\\} ([0-9.eE+-]+)$")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }

    private static Credential credential(String name, Role role) {
        return new Credential(name, role, secret(name).getBytes(StandardCharsets.UTF_8), null, Set.of(), null, null);
    }

    private static String secret(String name) {
        return name + "-secret-0123456789";
    }
}
