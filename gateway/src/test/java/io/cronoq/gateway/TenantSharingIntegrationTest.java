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
 * Sharing a pool between tenants through a real gateway, scheduler and broker: an admin sets a tenant's weight and
 * quota and the pool's preemption, two tenants submit (one through a token bound to its tenant), and what the
 * scheduler made of it reads back from {@code /v1/tenants}, the snapshot, the task and the metrics.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TenantSharingIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Credentials TOKENS = Credentials.of(List.of(
            credential("admin", Role.ADMIN, null),
            credential("ci", Role.SUBMITTER, "research"),
            credential("batch", Role.SUBMITTER, null)));

    private static SchedulerNode node;
    private static Inputs inputs;

    @BeforeAll
    static void start() {
        node = SchedulerNode.withGatewayTokens(broker, broker.uniqueName("share") + ".", broker.uniqueName("scheduler"),
                3, TOKENS);
        inputs = new Inputs(broker, node.app.topics());
        await().atMost(Duration.ofSeconds(60)).until(() -> node.api.get("/readyz").status() == 200);
    }

    @AfterAll
    static void stop() {
        inputs.close();
        node.close();
    }

    @Test
    void weightsAndQuotasSetByAnAdminShapeHowTwoTenantsShareThePool() {
        Api admin = as("admin");
        Api ci = as("ci");
        Api batch = as("batch");
        String pool = broker.uniqueName("teams");
        inputs.register(pool, "cpu-1", Map.of(), 4);
        await().atMost(WAIT).until(() -> admin.get("/v1/workers/cpu-1?pool=" + pool).status() == 200);

        Api.Reply weight = admin.put("/v1/pools/" + pool + "/tenants/research",
                "{\"weight\":3,\"quotas\":[{\"guaranteed\":1,\"max\":3}]}");
        Api.Reply preemption = admin.put("/v1/pools/" + pool + "/sharing",
                "{\"preemption\":false,\"preemptionGraceMs\":60000}");
        assertThat(weight.status()).as(weight.toString()).isEqualTo(202);
        assertThat(weight.json().path("setBy").asText()).isEqualTo("admin");
        assertThat(preemption.status()).as(preemption.toString()).isEqualTo(202);
        // In submission order on the pool's partition: research's first three fill its max, then default's.
        for (String id : List.of("r1", "r2", "r3")) {
            submit(ci, "{\"pool\":\"%s\",\"id\":\"%s\"}".formatted(pool, id));
        }
        for (String id : List.of("d1", "d2", "d3")) {
            submit(batch, "{\"pool\":\"%s\",\"id\":\"%s\"}".formatted(pool, id));
        }

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode sharing = admin.get("/v1/tenants?pool=" + pool).json().path("pools").get(0);
            assertThat(sharing.path("pool").asText()).isEqualTo(pool);
            assertThat(sharing.path("preemption").asBoolean()).isFalse();
            assertThat(sharing.path("preemptionGraceMs").asLong()).isEqualTo(60_000);
            assertThat(sharing.path("slots").asInt()).isEqualTo(4);
            assertThat(sharing.path("tenants").findValuesAsText("tenant")).containsExactly("default", "research");
            JsonNode fallback = sharing.path("tenants").get(0);
            assertThat(fallback.path("weight").asDouble()).isEqualTo(1.0);
            assertThat(fallback.path("slotsInUse").asInt()).as("the slot research's max left").isEqualTo(1);
            assertThat(fallback.path("fairShare").asDouble()).as("4 slots x 1 / (1 + 3)").isEqualTo(1.0);
            assertThat(fallback.path("waiting").asLong()).isEqualTo(2);
            assertThat(fallback.path("oldestWaitingMs").isNumber()).isTrue();
            JsonNode research = sharing.path("tenants").get(1);
            assertThat(research.path("weight").asDouble()).isEqualTo(3.0);
            assertThat(research.path("slotsInUse").asInt()).isEqualTo(3);
            assertThat(research.path("fairShare").asDouble()).as("4 slots x 3 / (1 + 3)").isEqualTo(3.0);
            assertThat(research.path("waiting").asLong()).isZero();
            JsonNode quota = research.path("quotas").get(0);
            assertThat(quota.path("scope").asText()).isEqualTo("pool");
            assertThat(List.of(quota.path("guaranteed").asInt(), quota.path("max").asInt(), quota.path("inUse").asInt()))
                    .containsExactly(1, 3, 3);
        });

        JsonNode all = poolOf(admin.get("/v1/tenants").json(), pool);
        assertThat(all.path("tenants").findValuesAsText("tenant")).as("every pool's answer holds it too")
                .containsExactly("default", "research");
        assertThat(all.path("tenants").findValuesAsText("slotsInUse")).containsExactly("1", "3");
        JsonNode snapshot = poolOf(admin.get("/v1/snapshot").json(), pool);
        assertThat(snapshot.path("busy").asInt()).isEqualTo(4);
        assertThat(snapshot.path("tenants").findValuesAsText("tenant")).containsExactly("default", "research");
        assertThat(snapshot.path("tenants").findValuesAsText("slotsInUse")).containsExactly("1", "3");
        assertThat(admin.get("/v1/tasks/r1?pool=" + pool).json().path("tenant").asText())
                .as("the token's tenant").isEqualTo("research");
        assertThat(admin.get("/v1/tasks/d1?pool=" + pool).json().path("tenant").asText()).isEqualTo("default");

        String metrics = admin.get("/metrics").text();
        String research = "pool=\"" + pool + "\",tenant=\"research\"";
        assertThat(value(metrics, "cronoq_tenant_slots_in_use", research)).isEqualTo(3.0);
        assertThat(value(metrics, "cronoq_tenant_weight", research)).isEqualTo(3.0);
        assertThat(value(metrics, "cronoq_tenant_waiting_tasks", "pool=\"" + pool + "\",tenant=\"default\""))
                .isEqualTo(2.0);
        assertThat(value(metrics, "cronoq_tenant_quota_max_slots", "pool=\"" + pool + "\",scope=\"pool\",tenant=\"research\""))
                .isEqualTo(3.0);
    }

    @Test
    void aTokenBoundToATenantCannotSubmitForAnotherAndOnlyAnAdminSetsTheSharing() {
        String pool = broker.uniqueName("bound");
        inputs.register(pool, "cpu-1", Map.of(), 1);
        await().atMost(WAIT).until(() -> as("admin").get("/v1/workers/cpu-1?pool=" + pool).status() == 200);

        Api.Reply other = as("ci").post("/v1/tasks", "{\"pool\":\"%s\",\"tenant\":\"default\"}".formatted(pool));
        Api.Reply notAdmin = as("batch").put("/v1/pools/" + pool + "/tenants/research", "{\"weight\":2}");
        Api.Reply invalid = as("admin").put("/v1/pools/" + pool + "/tenants/research", "{\"quotas\":[{\"max\":-1}]}");

        assertThat(other.status()).as(other.toString()).isEqualTo(403);
        assertThat(other.json().path("error").path("message").asText())
                .isEqualTo("token 'ci' submits for tenant research only; leave tenant out or name research");
        assertThat(notAdmin.status()).as(notAdmin.toString()).isEqualTo(403);
        assertThat(as("none").put("/v1/pools/" + pool + "/sharing", "{\"preemption\":true}").status()).isEqualTo(401);
        assertThat(invalid.status()).as(invalid.toString()).isEqualTo(400);
        assertThat(invalid.json().path("error").path("field").asText()).isEqualTo("quotas[0].max");
    }

    /**
     * Quotas and limits are written before the fleet arrives: a pool no worker or task has named takes its sharing
     * and limits, is a pool from then on (the snapshot shows it with its policy and no workers, the tenants and
     * limits views show its policy), and the workers that come later run its tasks under that policy.
     */
    @Test
    void aPoolsPolicyIsSetBeforeItsFleetArrivesAndHoldsWhenTheFleetDoes() {
        Api admin = as("admin");
        String pool = broker.uniqueName("early");

        List<Api.Reply> set = List.of(
                admin.put("/v1/pools/" + pool + "/tenants/research", "{\"weight\":3,\"quotas\":[{\"max\":1}]}"),
                admin.put("/v1/pools/" + pool + "/sharing", "{\"preemption\":false}"),
                admin.put("/v1/pools/" + pool + "/limits/rates/openai", "{\"perSecond\":1000,\"burst\":10}"),
                admin.put("/v1/pools/" + pool + "/limits/keys", "{\"key\":\"customer-42\",\"max\":1}"));
        assertThat(set).allSatisfy(reply -> assertThat(reply.status()).as(reply.toString()).isEqualTo(202));

        // path(), not get(): until all four changes are folded, a missing element fails an assertion (tried
        // again) rather than throwing.
        await().atMost(WAIT).untilAsserted(() -> {
            Api.Reply one = admin.get("/v1/snapshot?pool=" + pool);
            assertThat(one.status()).as(one.toString()).isEqualTo(200);
            JsonNode snapshot = one.json().path("pools").path(0);
            assertThat(snapshot.path("capacity").asInt()).isZero();
            assertThat(snapshot.path("groups")).isEmpty();
            assertThat(snapshot.path("tenants").findValuesAsText("tenant")).containsExactly("research");
            assertThat(snapshot.path("limits").path("rates").findValuesAsText("name")).containsExactly("openai");
            assertThat(poolOf(admin.get("/v1/snapshot").json(), pool).path("capacity").asInt())
                    .as("every pool's snapshot holds it too").isZero();
            JsonNode sharing = admin.get("/v1/tenants?pool=" + pool).json().path("pools").path(0);
            assertThat(sharing.path("preemption").asBoolean()).isFalse();
            assertThat(sharing.path("slots").asInt()).isZero();
            JsonNode research = sharing.path("tenants").path(0);
            assertThat(research.path("tenant").asText()).isEqualTo("research");
            assertThat(research.path("weight").asDouble()).isEqualTo(3.0);
            assertThat(research.path("quotas").path(0).path("max").asInt()).isEqualTo(1);
            JsonNode limits = admin.get("/v1/limits?pool=" + pool).json().path("pools").path(0);
            assertThat(limits.path("rates").path(0).path("defined").asBoolean()).isTrue();
            assertThat(limits.path("rates").path(0).path("perSecond").asDouble()).isEqualTo(1000.0);
            assertThat(limits.path("keys").path(0).path("key").asText()).isEqualTo("customer-42");
            assertThat(limits.path("keys").path(0).path("limit").asInt()).isEqualTo(1);
        });

        inputs.register(pool, "cpu-1", Map.of(), 4);
        await().atMost(WAIT).until(() -> admin.get("/v1/workers/cpu-1?pool=" + pool).status() == 200);
        for (String id : List.of("r1", "r2")) {
            submit(as("ci"), "{\"pool\":\"%s\",\"id\":\"%s\",\"rateLimits\":[{\"name\":\"openai\"}]}"
                    .formatted(pool, id));
        }

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(admin.get("/v1/tasks/r1?pool=" + pool).json().path("state").asText())
                    .as("its rate limit was defined before the worker came").isEqualTo("ASSIGNED");
            JsonNode second = admin.get("/v1/tasks/r2?pool=" + pool).json();
            assertThat(second.path("state").asText()).isEqualTo("WAITING");
            assertThat(second.path("waiting").path("reason").asText()).as("the quota set before the worker came")
                    .isEqualTo("tenant research at its max: 1/1 slots of the pool");
        });
    }

    private static Api as(String who) {
        return who.equals("none") ? node.api : node.api.withToken(secret(who));
    }

    private static void submit(Api api, String body) {
        Api.Reply reply = api.post("/v1/tasks", body);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(202);
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

    private static Credential credential(String name, Role role, String tenant) {
        return new Credential(name, role, secret(name).getBytes(StandardCharsets.UTF_8), null, Set.of(), null, tenant);
    }

    private static String secret(String name) {
        return name + "-secret-0123456789";
    }
}
