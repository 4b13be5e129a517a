package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.auth.Credentials;
import io.javalin.testtools.Response;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The snapshot, history, health, readiness, metrics and API-description routes in Javalin's test server over a
 * state in memory: what each answers, and how it refuses a bad or missing parameter, an unknown pool and a missing
 * or weak token; and that a peer's forwarded request reads this instance's own state.
 */
class ReadRoutesTest {

    private final MemoryState state = new MemoryState("2026-06-01T11:59:59Z")
            .pool(MemoryState.pool("theirs", 2, 2, 5))
            .pool(MemoryState.pool("ours", 8, 3, 0));
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, new RecordingCommands());
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, new RecordingCommands());

    @Test
    void theSnapshotHasEveryPoolByNameOrTheOneAskedFor() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer all = get(client, "/v1/snapshot", null);
            TestGateway.Answer ours = get(client, "/v1/snapshot?pool=ours", null);

            assertThat(all.status()).as(all.toString()).isEqualTo(200);
            assertThat(all.json().path("at").asText()).isEqualTo("2026-06-01T11:59:59Z");
            assertThat(all.json().path("pools").findValuesAsText("pool")).containsExactly("ours", "theirs");
            assertThat(all.json().path("pools").get(1).path("waiting").asLong()).isEqualTo(5);
            assertThat(all.json().path("pools").get(1).path("oldestWaitingMs").asLong()).isEqualTo(1000);
            assertThat(ours.status()).isEqualTo(200);
            assertThat(ours.json().path("at").asText()).as("the gateway's clock").isEqualTo(TestGateway.NOW.toString());
            assertThat(ours.json().path("pools")).hasSize(1);
            assertThat(ours.json().path("pools").get(0).path("capacity").asInt()).isEqualTo(8);
            assertThat(ours.json().path("pools").get(0).path("groups").get(0).path("busy").asInt()).isEqualTo(3);
        });
    }

    @Test
    void theSnapshotOfAnUnknownPoolIs404AndABadPoolIs400() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer unknown = get(client, "/v1/snapshot?pool=nobody", null);
            TestGateway.Answer bad = get(client, "/v1/snapshot?pool=" + "p".repeat(300), null);

            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.error("code")).isEqualTo("NOT_FOUND");
            assertThat(unknown.error("message")).contains("no pool nobody");
            assertThat(bad.status()).as(bad.toString()).isEqualTo(400);
            assertThat(bad.error("field")).isEqualTo("pool");
        });
    }

    @Test
    void withTokensTheSnapshotIsOfTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(get(client, "/v1/snapshot", null).status()).isEqualTo(401);
            assertThat(get(client, "/v1/snapshot", "viewer").status()).isEqualTo(200);
            assertThat(get(client, "/v1/snapshot?pool=ours", "submitter").status()).isEqualTo(200);
            assertThat(get(client, "/v1/snapshot", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/snapshot?pool=theirs", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/snapshot?pool=ours", "worker").status()).isEqualTo(403);
        });
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

    @Test
    void theHistoryNeedsAPoolAndMinutesFromOneToSixtyAndAnUnknownPoolIs404() {
        TestGateway.test(withHistory(open, (pool, minutes, now) -> Optional.empty()), (server, client) -> {
            TestGateway.Answer noPool = get(client, "/v1/history", null);
            TestGateway.Answer unknown = get(client, "/v1/history?pool=nobody", null);

            assertThat(noPool.status()).as(noPool.toString()).isEqualTo(400);
            assertThat(noPool.error("field")).isEqualTo("pool");
            for (String minutes : new String[] {"0", "61", "an-hour"}) {
                TestGateway.Answer bad = get(client, "/v1/history?pool=ours&minutes=" + minutes, null);

                assertThat(bad.status()).as(minutes + ": " + bad).isEqualTo(400);
                assertThat(bad.error("field")).isEqualTo("minutes");
            }
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.error("message")).contains("no history of pool nobody");
        });
    }

    @Test
    void withTokensTheHistoryIsOfTheCallersPools() {
        TestGateway.test(withHistory(secured, (pool, minutes, now) -> Optional.of(history(pool, now))),
                (server, client) -> {
                    assertThat(get(client, "/v1/history?pool=ours", null).status()).isEqualTo(401);
                    assertThat(get(client, "/v1/history?pool=ours", "submitter").status()).isEqualTo(200);
                    assertThat(get(client, "/v1/history?pool=theirs", "submitter").status()).isEqualTo(403);
                    assertThat(get(client, "/v1/history?pool=theirs", "viewer").status()).isEqualTo(200);
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

            assertThat(ready.status()).isEqualTo(503);
            assertThat(ready.error("code")).isEqualTo("UNAVAILABLE");
            assertThat(ready.error("message")).isEqualTo("not ready: this test gateway reads no state");
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
            assertThat(get(client, "/metrics", "admin").status()).isEqualTo(200);
            assertThat(get(client, "/metrics", null).status()).isEqualTo(401);
            assertThat(get(client, "/metrics", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/metrics", "worker").status()).isEqualTo(403);
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
    void anUnknownPathIs404NamingTheApiDescription() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = get(client, "/v1/nothing-here", null);

            assertThat(answer.status()).isEqualTo(404);
            assertThat(answer.error("code")).isEqualTo("NOT_FOUND");
            assertThat(answer.error("message")).contains("/openapi.json");
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
