package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static io.cronoq.gateway.TestGateway.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.auth.Credentials;
import io.javalin.testtools.Response;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The snapshot, history, health, readiness, metrics and API-description routes in Javalin's test server over a
 * state in memory: what each answers, and how it refuses a bad or missing parameter, an unknown pool and a missing
 * or weak token; that every read (tasks and workers too) is of the caller's pools; and that a peer's forwarded
 * request reads this instance's own state.
 */
class ReadRoutesTest {

    private final MemoryState state = new MemoryState("2026-06-01T11:59:59Z")
            .pool(MemoryState.pool("theirs", 2, 2, 5))
            .pool(MemoryState.pool("ours", 8, 3, 0))
            .task(MemoryState.task("t-1", "ours", "RUNNING", Map.of(), "w-2"))
            .worker(MemoryState.worker("w-2", "ours", "ACTIVE", 1, 1, "t-1"))
            .sharing(new SharingView("ours", true, 30_000, 8, 0, List.of()));
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, new RecordingCommands());
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, new RecordingCommands());

    @Test
    void theSnapshotHasEveryPoolByNameOrTheOneAskedFor() {
        TestGateway.test(open, (server, client) -> {
            JsonNode all = ok(get(client, "/v1/snapshot", null));
            JsonNode ours = ok(get(client, "/v1/snapshot?pool=ours", null));

            assertThat(all.path("at").asText()).isEqualTo("2026-06-01T11:59:59Z");
            assertThat(all.path("pools").findValuesAsText("pool")).containsExactly("ours", "theirs");
            assertThat(all.path("pools").get(1).path("waiting").asLong()).isEqualTo(5);
            assertThat(all.path("pools").get(1).path("oldestWaitingMs").asLong()).isEqualTo(1000);
            JsonNode tenant = all.path("pools").get(1).path("tenants").get(0);
            assertThat(tenant.path("tenant").asText()).as("each pool's tenants").isEqualTo("default");
            assertThat(tenant.path("slotsInUse").asInt()).isEqualTo(2);
            assertThat(tenant.path("waiting").asLong()).isEqualTo(5);
            assertThat(tenant.path("oldestWaitingMs").asLong()).isEqualTo(1000);
            assertThat(ours.path("at").asText()).as("the gateway's clock").isEqualTo(TestGateway.NOW.toString());
            assertThat(ours.path("pools")).hasSize(1);
            assertThat(ours.path("pools").get(0).path("capacity").asInt()).isEqualTo(8);
            assertThat(ours.path("pools").get(0).path("groups").get(0).path("busy").asInt()).isEqualTo(3);
        });
    }

    @Test
    void theSnapshotOrHistoryOfAnUnknownPoolAndAnUnknownPathAre404() {
        TestGateway.test(withHistory(open, (pool, minutes, now) -> Optional.empty()), (server, client) -> {
            assertThat(refused(get(client, "/v1/snapshot?pool=nobody", null), 404, null)).contains("no pool nobody");
            assertThat(refused(get(client, "/v1/history?pool=nobody", null), 404, null))
                    .contains("no history of pool nobody");
            assertThat(refused(get(client, "/v1/nothing-here", null), 404, null)).contains("/openapi.json");
        });
    }

    @ParameterizedTest(name = "GET {0}")
    @CsvSource({"/v1/tasks/-starts-with-a-dash, id", "/v1/tasks/t-1?pool=two%20words, pool", "/v1/tasks?limit=0, limit",
            "/v1/tasks?limit=501, limit", "/v1/tasks?limit=ten, limit", "/v1/tasks?state=DONE, state",
            "/v1/tasks?before=not-a-cursor, before", "/v1/tasks?pool=a/b, pool", "/v1/workers?state=SLEEPING, state",
            "/v1/workers?pool=%2Fetc, pool", "/v1/workers/_w, id", "/v1/snapshot?pool=two%20words, pool",
            "/v1/history, pool", "/v1/history?pool=ours&minutes=0, minutes", "/v1/history?pool=ours&minutes=61, minutes",
            "/v1/history?pool=ours&minutes=an-hour, minutes", "/v1/tenants?pool=two%20words, pool",
            "/v1/snapshot?keys=0, keys", "/v1/snapshot?keys=10001, keys", "/v1/snapshot?classes=many, classes",
            "/v1/limits?pool=two%20words, pool", "/v1/limits?keys=-1, keys"})
    void aBadParameterOfAReadIs400NamingIt(String path, String field) {
        TestGateway.test(withHistory(open, (pool, minutes, now) -> Optional.of(history(pool, now))),
                (server, client) -> assertThat(refused(get(client, path, null), 400, field)).isNotBlank());
    }

    @Test
    void theHistoryIsThePoolsLastMinutesAsTheSourceAnswers() {
        List<String> asked = new ArrayList<>();
        HistorySource source = (pool, minutes, now) -> {
            asked.add(pool + " " + minutes + " " + now);
            return pool.equals("ours") ? Optional.of(history(pool, now)) : Optional.empty();
        };
        TestGateway.test(withHistory(open, source), (server, client) -> {
            TestGateway.Answer hour = get(client, "/v1/history?pool=ours", null);
            TestGateway.Answer five = get(client, "/v1/history?pool=ours&minutes=5", null);

            assertThat(hour.status()).as(hour.toString()).isEqualTo(200);
            assertThat(hour.json().path("pool").asText()).isEqualTo("ours");
            assertThat(hour.json().path("bucketSeconds").asLong()).isEqualTo(60);
            assertThat(hour.json().path("total").path("capacity").get(0).asInt()).isEqualTo(8);
            assertThat(hour.json().path("groups").get(0).path("labels").path("gpu").asText()).isEqualTo("a100");
            assertThat(five.status()).isEqualTo(200);
            assertThat(asked).containsExactly("ours 60 " + TestGateway.NOW, "ours 5 " + TestGateway.NOW);
        });
    }

    @ParameterizedTest(name = "GET {0}")
    @ValueSource(strings = {"/v1/snapshot", "/v1/history", "/v1/tasks", "/v1/tasks/t-1", "/v1/workers",
            "/v1/workers/w-2", "/v1/tenants"})
    void withTokensEveryReadIsInTheCallersPools(String path) {
        TestGateway.test(withHistory(secured, (pool, minutes, now) -> Optional.of(history(pool, now))),
                (server, client) -> {
                    assertThat(statuses(client, path + "?pool=ours", "none", "admin", "viewer", "submitter", "worker"))
                            .containsExactly("none=401", "admin=200", "viewer=200", "submitter=200", "worker=403");
                    assertThat(statuses(client, path + "?pool=theirs", "submitter")).containsExactly("submitter=403");
                    assertThat(statuses(client, path, "submitter")).as("a caller restricted to pools names one")
                            .containsExactly("submitter=403");
                });
    }

    @Test
    void healthAndReadinessAnswerWithoutAToken() {
        TestGateway.test(secured, (server, client) -> {
            TestGateway.Answer health = get(client, "/healthz", null);
            TestGateway.Answer ready = get(client, "/readyz", null);

            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json().path("status").asText()).isEqualTo("UP");
            assertThat(ready.status()).as(ready.toString()).isEqualTo(200);
            assertThat(ready.json().path("status").asText()).isEqualTo("READY");
            assertThat(ready.json().path("streams").asText()).isEqualTo("RUNNING");
        });
    }

    @Test
    void notReadyIs503WithRetryAfterAndTheReason() {
        TestGateway.test(TestGateway.context(Credentials.none()), (server, client) -> {
            TestGateway.Answer ready = get(client, "/readyz", null);

            assertThat(refused(ready, 503, null)).isEqualTo("not ready: this test gateway reads no state");
            assertThat(ready.header("Retry-After")).isEqualTo("1");
            assertThat(get(client, "/healthz", null).status()).as("alive all the same").isEqualTo(200);
        });
    }

    @Test
    void theMetricsAreTheScrapeInPrometheusTextForAdminsAndViewers() {
        TestGateway.test(secured, (server, client) -> {
            TestGateway.Answer viewer = get(client, "/metrics", "viewer");

            assertThat(viewer.status()).isEqualTo(200);
            assertThat(viewer.text()).isEqualTo(TestGateway.METRICS);
            assertThat(viewer.header("Content-Type")).isEqualTo(ServiceRoutes.PROMETHEUS_TEXT);
            assertThat(statuses(client, "/metrics", "none", "admin", "submitter", "worker"))
                    .containsExactly("none=401", "admin=200", "submitter=403", "worker=403");
        });
    }

    @Test
    void theApiDescriptionIsOpenJsonListingTheRoutes() {
        TestGateway.test(secured, (server, client) -> {
            TestGateway.Answer api = get(client, "/openapi.json", null);

            assertThat(api.status()).isEqualTo(200);
            assertThat(api.header("Content-Type")).startsWith("application/json");
            assertThat(api.json().path("paths").has("/v1/tasks")).isTrue();
            assertThat(api.json().path("paths").has("/v1/workers/{id}/drain")).isTrue();
        });
    }

    @Test
    void aPeersForwardedRequestReadsThisInstancesOwnState() {
        MemoryState local = new MemoryState("local").pool(MemoryState.pool("ours", 1, 0, 0));
        GatewayContext context = new GatewayContext(state, local, open.commands(), open.registry(), open.metrics(),
                open.clock(), open.credentials());
        TestGateway.test(context, (server, client) -> {
            TestGateway.Answer asked = get(client, "/v1/snapshot", null);
            Response forwarded = client.get("/v1/snapshot",
                    request -> request.header(PeerClient.SCOPE_HEADER, PeerClient.LOCAL));

            assertThat(forwarded.code()).isEqualTo(200);
            assertThat(Api.JSON.readTree(forwarded.body().string()).path("at").asText()).isEqualTo("local");
            assertThat(asked.json().path("pools")).as("the cluster's answer").hasSize(2);
        });
    }

    private static GatewayContext withHistory(GatewayContext context, HistorySource history) {
        return new GatewayContext(context.cluster(), context.local(), context.commands(), context.registry(),
                context.metrics(), context.clock(), context.credentials(), history);
    }

    private static HistoryView history(String pool, Instant now) {
        HistoryView.Series series = new HistoryView.Series(List.of(8), List.of(3), List.of(2), List.of(0L),
                java.util.Collections.singletonList(null), List.of(1), List.of(40L), List.of(90L), List.of(99L));
        return new HistoryView(pool, now.toString(), "2026-06-01T11:00:00Z", 60, List.of(now.getEpochSecond() - 60),
                series, List.of(new HistoryView.GroupSeries("gpu=a100", Map.of("gpu", "a100"), series)));
    }
}
