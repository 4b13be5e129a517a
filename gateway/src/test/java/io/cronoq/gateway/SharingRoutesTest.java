package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.callStatuses;
import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static io.cronoq.gateway.TestGateway.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot.QuotaUse;
import io.cronoq.scheduler.policy.SharingSnapshot.TenantShare;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * How pools are shared between tenants, in Javalin's test server over a state in memory: {@code GET /v1/tenants}
 * as JSON (every pool or one, 404 for an unknown one), and the admin's {@code PUT}s of a tenant's weight and quotas
 * and of a pool's preemption — what they write on the submissions topic, each malformed body or broken rule a 400
 * naming the field (a field the server sets too), a pool no worker or task named yet taking its policy, and a
 * caller that is not an admin of the pool 401/403.
 */
class SharingRoutesTest {

    private static final String JSON = "application/json";
    private static final String TENANT = "/v1/pools/ours/tenants/research";
    private static final String SHARING = "/v1/pools/ours/sharing";

    /** Pool ours as the scheduler shares it: research holds 3 of 6 slots with a GPU quota, default waits. */
    private static final SharingSnapshot OURS = new SharingSnapshot("ours", true, 30_000, 6, 2, List.of(
            new TenantShare("default", 1, 1, 0, 1.5, 1.0 / 6, 2, TestGateway.NOW.minusSeconds(42), List.of()),
            new TenantShare("research", 3, 3, 2, 4.5, 1.0 / 3, 0, null, List.of(
                    new QuotaUse(Map.of("gpu", "a100"), 2, 4, 2),
                    new QuotaUse(Map.of(), 0, null, 3)))));

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .sharing(ViewMapper.sharing(OURS, TestGateway.NOW))
            .sharing(new SharingView("theirs", false, 0, 1, 0, List.of()));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, commands);

    // ---- reading ------------------------------------------------------------------------------------

    @Test
    void theTenantsOfEveryPoolAreTheSchedulersSharingAsJson() {
        TestGateway.test(open, (server, client) -> {
            JsonNode all = ok(get(client, "/v1/tenants", null));

            assertThat(all.path("at").asText()).isEqualTo(TestGateway.NOW.toString());
            assertThat(all.path("pools").findValuesAsText("pool")).containsExactly("ours", "theirs");
            JsonNode ours = all.path("pools").get(0);
            assertThat(ours.path("preemption").asBoolean()).isTrue();
            assertThat(ours.path("preemptionGraceMs").asLong()).isEqualTo(30_000);
            assertThat(ours.path("slots").asInt()).isEqualTo(6);
            assertThat(ours.path("gpus").asInt()).isEqualTo(2);
            assertThat(ours.path("tenants").findValuesAsText("tenant")).containsExactly("default", "research");

            JsonNode waiting = ours.path("tenants").get(0);
            assertThat(waiting.path("slotsInUse").asInt()).isEqualTo(1);
            assertThat(waiting.path("fairShare").asDouble()).isEqualTo(1.5);
            assertThat(waiting.path("waiting").asLong()).isEqualTo(2);
            assertThat(waiting.path("oldestWaitingSince").asText()).isEqualTo(TestGateway.NOW.minusSeconds(42).toString());
            assertThat(waiting.path("oldestWaitingMs").asLong()).as("by the gateway's clock").isEqualTo(42_000);
            assertThat(waiting.path("quotas")).isEmpty();

            JsonNode research = ours.path("tenants").get(1);
            assertThat(research.path("weight").asDouble()).isEqualTo(3.0);
            assertThat(research.path("slotsInUse").asInt()).isEqualTo(3);
            assertThat(research.path("gpusInUse").asInt()).isEqualTo(2);
            assertThat(research.path("fairShare").asDouble()).isEqualTo(4.5);
            assertThat(research.path("dominantShare").asDouble()).isEqualTo(1.0 / 3);
            assertThat(research.path("oldestWaitingMs").isNull()).as("nothing of it waits").isTrue();
            JsonNode gpu = research.path("quotas").get(0);
            assertThat(gpu.path("labels")).isEqualTo(Api.JSON.valueToTree(Map.of("gpu", "a100")));
            assertThat(gpu.path("scope").asText()).isEqualTo("gpu=a100");
            assertThat(List.of(gpu.path("guaranteed").asInt(), gpu.path("max").asInt(), gpu.path("inUse").asInt()))
                    .containsExactly(2, 4, 2);
            JsonNode pool = research.path("quotas").get(1);
            assertThat(pool.path("scope").asText()).as("a quota without labels is the whole pool's").isEqualTo("pool");
            assertThat(pool.path("labels").size()).isZero();
            assertThat(pool.path("max").isNull()).as("no bound").isTrue();
        });
    }

    @Test
    void onePoolIsAskedWithItsNameAndAnUnknownOneIs404NamingIt() {
        TestGateway.test(open, (server, client) -> {
            JsonNode theirs = ok(get(client, "/v1/tenants?pool=theirs", null));

            assertThat(theirs.path("pools").findValuesAsText("pool")).containsExactly("theirs");
            assertThat(theirs.path("pools").get(0).path("preemption").asBoolean()).isFalse();
            assertThat(refused(get(client, "/v1/tenants?pool=nobody", null), 404, "pool")).contains("no pool nobody");
            refused(get(client, "/v1/tenants?pool=two%20words", null), 400, "pool");
        });
    }

    @Test
    void withTokensTheTenantsAreReadInTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(statuses(client, "/v1/tenants?pool=ours", "none", "admin", "viewer", "submitter", "worker",
                    "ci")).containsExactly("none=401", "admin=200", "viewer=200", "submitter=200", "worker=403",
                    "ci=200");
            assertThat(statuses(client, "/v1/tenants", "viewer", "submitter"))
                    .as("a caller restricted to pools names one").containsExactly("viewer=200", "submitter=403");
        });
    }

    // ---- setting --------------------------------------------------------------------------------------

    @Test
    void aTenantsWeightAndQuotasAre202AndWrittenAsTheSchedulerReadsThem() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "PUT", TENANT, null, JSON, """
                    {"weight": 3, "quotas": [{"labels": {"gpu": "a100"}, "guaranteed": 4, "max": 16},
                                             {"guaranteed": 1}]}""");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json()).isEqualTo(Api.JSON.valueToTree(Map.of("pool", "ours", "tenant", "research",
                    "setBy", "gateway", "setAt", TestGateway.NOW.toString())));
            SharingPolicySet policy = commands.only(SharingPolicySet.class);
            assertThat(policy.getPool()).isEqualTo("ours");
            assertThat(policy.getTenant()).isEqualTo("research");
            assertThat(policy.getWeight()).isEqualTo(3.0);
            assertThat(policy.getQuotas()).containsExactly(new TenantQuota(Map.of("gpu", "a100"), 4, 16),
                    new TenantQuota(Map.of(), 1, null));
            assertThat(policy.getPreemption()).isNull();
            assertThat(policy.getPreemptionGraceMs()).isNull();
            assertThat(policy.getSetBy()).as("an open gateway").isEqualTo("gateway");
            assertThat(policy.getSetAt()).as("the gateway's clock").isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void whatTheBodyLeavesOutIsLeftAsItWasAndAnEmptyListRemovesTheQuotas() {
        TestGateway.test(open, (server, client) -> {
            assertThat(call(client, "PUT", TENANT, null, JSON, "{\"weight\":0.5}").status()).isEqualTo(202);
            assertThat(call(client, "PUT", TENANT, null, JSON, "{\"quotas\":[]}").status()).isEqualTo(202);

            List<SharingPolicySet> written = commands.written(SharingPolicySet.class);
            assertThat(written.get(0).getWeight()).isEqualTo(0.5);
            assertThat(written.get(0).getQuotas()).as("unchanged").isNull();
            assertThat(written.get(1).getWeight()).as("unchanged").isNull();
            assertThat(written.get(1).getQuotas()).as("every quota removed").isEmpty();
        });
    }

    @Test
    void aPoolsPreemptionIs202AndWrittenWithoutATenant() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "PUT", SHARING, null, JSON,
                    "{\"preemption\": false, \"preemptionGraceMs\": 60000}");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().has("tenant")).isFalse();
            assertThat(answer.json().path("pool").asText()).isEqualTo("ours");
            SharingPolicySet policy = commands.only(SharingPolicySet.class);
            assertThat(policy.getTenant()).as("the pool's own setting").isNull();
            assertThat(policy.getPreemption()).isFalse();
            assertThat(policy.getPreemptionGraceMs()).isEqualTo(60_000L);
            assertThat(policy.getWeight()).isNull();
            assertThat(policy.getQuotas()).isNull();
        });
    }

    @ParameterizedTest(name = "PUT {0} {1} -> 400 on {2}")
    @CsvSource(delimiter = '|', value = {
            TENANT + "| {}                                                         | weight",
            TENANT + "| {\"weight\":\"3\"}                                         | weight",
            TENANT + "| {\"weight\":0}                                             | weight",
            TENANT + "| {\"weight\":-2}                                            | weight",
            TENANT + "| {\"weight\":1001}                                          | weight",
            TENANT + "| {\"weight\":1e400}                                         | weight",
            TENANT + "| {\"weight\":2,\"colour\":\"red\"}                          | colour",
            TENANT + "| {\"preemption\":false}                                     | preemption",
            TENANT + "| {\"quotas\":{\"gpu\":\"a100\"}}                            | quotas",
            TENANT + "| {\"quotas\":[4]}                                           | quotas[0]",
            TENANT + "| {\"quotas\":[{\"guaranteed\":-1}]}                         | quotas[0].guaranteed",
            TENANT + "| {\"quotas\":[{\"guaranteed\":1.5}]}                        | quotas[0].guaranteed",
            TENANT + "| {\"quotas\":[{\"guaranteed\":5,\"max\":4}]}                | quotas[0].guaranteed",
            TENANT + "| {\"quotas\":[{\"max\":-1}]}                                | quotas[0].max",
            TENANT + "| {\"quotas\":[{\"max\":\"8\"}]}                             | quotas[0].max",
            TENANT + "| {\"quotas\":[{\"labels\":[\"gpu\"]}]}                      | quotas[0].labels",
            TENANT + "| {\"quotas\":[{\"labels\":{\"gpu\":\"a 100\"}}]}            | quotas[0].labels.gpu",
            TENANT + "| {\"quotas\":[{},{\"labels\":{}}]}                          | quotas[1].labels",
            TENANT + "| {\"quotas\":[{\"scope\":\"gpu=a100\"}]}                    | quotas[0].scope",
            TENANT + "| not json                                                   | body",
            TENANT + "| [1]                                                        | body",
            TENANT + "| {\"weight\":2} {\"weight\":3}                              | body",
            "/v1/pools/ours/tenants/-research | {\"weight\":2}                    | tenant",
            "/v1/pools/ours/tenants/x123456789x123456789x123456789x123456789x123456789x123456789xyzw | {\"weight\":2} | tenant",
            "/v1/pools/-ours/tenants/research | {\"weight\":2}                    | pool",
            SHARING + "| {}                                                        | body",
            SHARING + "| {\"preemption\":\"no\"}                                   | preemption",
            SHARING + "| {\"preemptionGraceMs\":-1}                                | preemptionGraceMs",
            SHARING + "| {\"preemptionGraceMs\":1.5}                               | preemptionGraceMs",
            SHARING + "| {\"preemptionGraceMs\":\"PT1M\"}                          | preemptionGraceMs",
            SHARING + "| {\"weight\":2}                                            | weight",
            "/v1/pools/-ours/sharing | {\"preemption\":true}                      | pool"})
    void aBadBodyOrPathIs400NamingTheFieldAndWritesNothing(String path, String body, String field) {
        TestGateway.test(open, (server, client) -> {
            String message = refused(call(client, "PUT", path, null, JSON, body), 400, field);

            assertThat(message).isNotBlank();
            assertThat(commands.written(SharingPolicySet.class)).isEmpty();
        });
    }

    @Test
    void aRefusalSaysWhatIsAllowed() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(call(client, "PUT", TENANT, null, JSON, "{\"weight\":0}"), 400, "weight"))
                    .contains("above 0 and at most 1000");
            assertThat(refused(call(client, "PUT", TENANT, null, JSON, "{\"quotas\":[{\"guaranteed\":5,\"max\":4}]}"),
                    400, "quotas[0].guaranteed")).contains("above its max 4");
            assertThat(refused(call(client, "PUT", SHARING, null, JSON, "{}"), 400, "body"))
                    .contains("give preemption, preemptionGraceMs or both");
            assertThat(refused(call(client, "PUT", TENANT, null, JSON, "{\"weight\":2,\"colour\":\"red\"}"), 400,
                    "colour")).contains("weight, quotas");
            assertThat(refused(call(client, "PUT", TENANT, null, "text/plain", "{\"weight\":2}"), 415, "Content-Type"))
                    .isNotBlank();
        });
    }

    @Test
    void aPoolNoWorkerOrTaskHasNamedYetTakesItsPolicy() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer tenant = call(client, "PUT", "/v1/pools/nobody/tenants/research", null, JSON,
                    "{\"weight\":2}");
            TestGateway.Answer pool = call(client, "PUT", "/v1/pools/nobody/sharing", null, JSON,
                    "{\"preemption\":true}");

            assertThat(tenant.status()).as(tenant.toString()).isEqualTo(202);
            assertThat(pool.status()).as(pool.toString()).isEqualTo(202);

            assertThat(commands.written(SharingPolicySet.class))
                    .extracting(SharingPolicySet::getPool, SharingPolicySet::getTenant)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("nobody", "research"),
                            org.assertj.core.groups.Tuple.tuple("nobody", null));
        });
    }

    @ParameterizedTest(name = "{0} {1} -> 400 on {2}")
    @CsvSource(delimiter = '|', value = {
            TENANT + "  | {\"weight\":2,\"setBy\":\"me\"}                   | setBy           | calling credential",
            TENANT + "  | {\"weight\":2,\"setAt\":\"2026-01-01T00:00:00Z\"} | setAt           | its clock",
            TENANT + "  | {\"tenant\":\"research\",\"weight\":2}           | tenant          | the path names",
            TENANT + "  | {\"pool\":\"ours\",\"weight\":2}                 | pool            | the path names",
            TENANT + "  | {\"weight\":2,\"slotsInUse\":3}                   | slotsInUse      | scheduler computes",
            TENANT + "  | {\"weight\":2,\"oldestWaitingMs\":null}           | oldestWaitingMs | scheduler computes",
            TENANT + "  | {\"quotas\":[{\"guaranteed\":1,\"inUse\":3}]}    | quotas[0].inUse | the tenant holds",
            TENANT + "  | {\"quotas\":[{\"scope\":\"pool\"}]}              | quotas[0].scope | from labels",
            SHARING + " | {\"preemption\":true,\"slots\":6}                 | slots           | ACTIVE workers",
            SHARING + " | {\"preemption\":true,\"setBy\":\"me\"}            | setBy           | calling credential"})
    void aFieldTheServerSetsIs400SayingWhoSetsItAndWritesNothing(String path, String body, String field, String who) {
        TestGateway.test(open, (server, client) -> {
            String message = refused(call(client, "PUT", path, null, JSON, body), 400, field);

            assertThat(message).startsWith(field + " is set by the server, not by the request: ").contains(who);
            assertThat(commands.written(SharingPolicySet.class)).isEmpty();
        });
    }

    @Test
    void withTokensOnlyAnAdminOfThePoolSetsHowItIsShared() {
        TestGateway.test(secured, (server, client) -> {
            String weight = "{\"weight\":2}";

            assertThat(callStatuses(client, "PUT", TENANT, JSON, weight, "none", "viewer", "submitter", "worker", "ci"))
                    .containsExactly("none=401", "viewer=403", "submitter=403", "worker=403", "ci=403");
            assertThat(callStatuses(client, "PUT", "/v1/pools/theirs/sharing", JSON, "{\"preemption\":true}",
                    "keeper")).as("an admin of pool ours only").containsExactly("keeper=403");
            assertThat(refused(call(client, "PUT", TENANT, "viewer", JSON, weight), 403, null))
                    .contains("'viewer'").contains("set how pools are shared");
            assertThat(commands.written(SharingPolicySet.class)).isEmpty();

            assertThat(callStatuses(client, "PUT", TENANT, JSON, weight, "admin", "keeper"))
                    .containsExactly("admin=202", "keeper=202");
            assertThat(callStatuses(client, "PUT", "/v1/pools/theirs/sharing", JSON, "{\"preemption\":true}", "admin"))
                    .containsExactly("admin=202");
            assertThat(commands.written(SharingPolicySet.class)).extracting(SharingPolicySet::getSetBy)
                    .as("journaled as set by the caller").containsExactly("admin", "keeper", "admin");
        });
    }
}
