package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two scheduler instances of one application (their own state directories and application.server
 * ports), each with its gateway: the pools are split between them, yet either gateway answers for
 * every pool and every task, and an answer that would miss a peer's part is refused as UNAVAILABLE.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TwoInstancesIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;
    private static final int POOLS_PER_INSTANCE = 3;

    @Test
    void eitherInstanceAnswersForEveryPoolAndTaskAndRefusesAPartialAnswer() throws InterruptedException {
        String prefix = broker.uniqueName("two") + ".";
        String applicationId = broker.uniqueName("scheduler");
        try (SchedulerNode a = SchedulerNode.start(broker, prefix, applicationId, PARTITIONS);
             SchedulerNode b = SchedulerNode.start(broker, prefix, applicationId, PARTITIONS);
             Inputs inputs = new Inputs(broker, a.app.topics())) {
            awaitSplit(a, b);
            Map<String, SchedulerNode> owners = poolsOwnedByEach(a, b);

            int slots = 1;
            for (Map.Entry<String, SchedulerNode> pool : owners.entrySet()) {
                inputs.register(pool.getKey(), "w-" + pool.getKey(), Map.of("zone", "eu"), slots++);
            }
            // Submit every task through the instance that does NOT own its pool: the write path is any instance.
            for (Map.Entry<String, SchedulerNode> pool : owners.entrySet()) {
                Api other = pool.getValue() == a ? b.api : a.api;
                assertThat(other.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"task-%s\",\"labels\":{\"zone\":\"eu\"}}"
                        .formatted(pool.getKey(), pool.getKey())).status()).isEqualTo(202);
            }

            // A pool's sharing is set through the instance that does NOT own it: it asks the owner whether the pool exists.
            for (Map.Entry<String, SchedulerNode> pool : owners.entrySet()) {
                Api other = pool.getValue() == a ? b.api : a.api;
                await().atMost(WAIT).until(() -> other.put("/v1/pools/" + pool.getKey() + "/tenants/default",
                        "{\"weight\":2}").status() == 202);
                assertThat(other.put("/v1/pools/" + pool.getKey() + "/limits/rates/api", "{\"perSecond\":5}").status())
                        .as("a rate limit set through the instance that does not own the pool").isEqualTo(202);
            }

            for (SchedulerNode asked : List.of(a, b)) {
                await().atMost(WAIT).untilAsserted(() -> {
                    JsonNode snapshot = asked.api.get("/v1/snapshot").json();
                    List<String> pools = new ArrayList<>();
                    snapshot.path("pools").forEach(p -> pools.add(p.path("pool").asText()));
                    assertThat(pools).as("the snapshot of %s is complete", asked.gateway.url())
                            .containsAll(owners.keySet());
                    int expected = 1;
                    for (String pool : owners.keySet()) {
                        JsonNode p = find(snapshot.path("pools"), "pool", pool);
                        assertThat(p.path("capacity").asInt()).as(pool).isEqualTo(expected++);
                        assertThat(p.path("busy").asInt()).as(pool).isEqualTo(1);
                        assertThat(p.path("groups").get(0).path("key").asText()).isEqualTo("zone=eu");
                    }
                });
                for (String pool : owners.keySet()) {
                    Api.Reply byId = asked.api.get("/v1/tasks/task-" + pool);
                    assertThat(byId.status()).as(byId.toString()).isEqualTo(200);
                    assertThat(byId.json().path("pool").asText()).isEqualTo(pool);
                    assertThat(byId.json().path("state").asText()).isEqualTo("ASSIGNED");
                    assertThat(byId.json().path("attempts").get(0).path("worker").asText()).isEqualTo("w-" + pool);
                    assertThat(asked.api.get("/v1/tasks/task-" + pool + "?pool=" + pool).status()).isEqualTo(200);
                    assertThat(asked.api.get("/v1/snapshot?pool=" + pool).json().path("pools").get(0)
                            .path("pool").asText()).isEqualTo(pool);
                    assertThat(asked.api.get("/v1/workers/w-" + pool).json().path("pool").asText()).isEqualTo(pool);
                    assertThat(asked.api.get("/v1/tasks?pool=" + pool).json().path("tasks")).hasSize(1);
                    JsonNode tenant = asked.api.get("/v1/tenants?pool=" + pool).json().path("pools").get(0)
                            .path("tenants").get(0);
                    assertThat(tenant.path("tenant").asText()).isEqualTo("default");
                    assertThat(tenant.path("weight").asDouble()).as("set through the other instance").isEqualTo(2.0);
                    assertThat(tenant.path("slotsInUse").asInt()).isEqualTo(1);
                }
                assertThat(asked.api.get("/v1/tenants").json().path("pools").findValuesAsText("pool"))
                        .as("the tenants of every pool, from either instance").containsAll(owners.keySet());
                await().atMost(WAIT).untilAsserted(() -> {
                    JsonNode limits = asked.api.get("/v1/limits").json().path("pools");
                    for (String pool : owners.keySet()) {
                        JsonNode rate = find(limits, "pool", pool).path("rates").get(0);
                        assertThat(rate.path("name").asText()).as("the limits of every pool, from either instance")
                                .isEqualTo("api");
                        assertThat(rate.path("perSecond").asDouble()).isEqualTo(5.0);
                        assertThat(asked.api.get("/v1/limits?pool=" + pool).json().path("pools").get(0)
                                .path("rates").get(0).path("burst").asInt()).as("perSecond rounded up").isEqualTo(5);
                    }
                });
                assertThat(asked.api.get("/v1/workers").json().path("workers")).hasSize(owners.size());
                assertThat(asked.api.get("/v1/tasks?limit=500").json().path("tasks")).hasSize(owners.size());
                assertThat(asked.api.get("/v1/tasks/no-such-task").status()).isEqualTo(404);
            }

            assertThat(a.api.get("/readyz").status()).as("both instances answer: A can serve every pool")
                    .isEqualTo(200);
            assertThat(a.api.get("/metrics").text()).contains("cronoq_unserved_partitions 0.0");

            // B's gateway goes away while its scheduler keeps its pools: A cannot give a complete answer.
            b.gateway.close();
            // A reuses a peer's liveness answer for a second (the scrape above just asked): once it lapses, A
            // finds B gone.
            Api.Reply readiness = await("A finds B's gateway gone").atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100)).until(() -> a.api.get("/readyz"), r -> r.status() != 200);
            assertThat(readiness.status()).as("A cannot serve B's pools, so it is not ready: " + readiness)
                    .isEqualTo(503);
            assertThat(readiness.json().path("error").path("message").asText())
                    .contains("input partition(s) have no owner this instance can serve from");
            assertThat(a.api.get("/metrics").text()).doesNotContain("cronoq_unserved_partitions 0.0")
                    .contains("cronoq_unserved_partitions");
            Api.Reply partial = a.api.get("/v1/snapshot");
            assertThat(partial.status()).as(partial.toString()).isEqualTo(503);
            assertThat(partial.header("Retry-After")).isEqualTo("1");
            assertThat(partial.json().path("error").path("message").asText()).contains("did not answer");
            String poolOfA = owners.entrySet().stream().filter(e -> e.getValue() == a).findFirst().orElseThrow().getKey();
            assertThat(a.api.get("/v1/snapshot?pool=" + poolOfA).status()).as("A still answers for its own pools")
                    .isEqualTo(200);
        }
    }

    @Test
    void withTokensAForwardedReadCarriesTheCallersTokenToTheOwner() {
        String prefix = broker.uniqueName("two-auth") + ".";
        String applicationId = broker.uniqueName("scheduler");
        Credentials credentials = Credentials.of(List.of(
                new Credential("admin", Role.ADMIN, "admin-secret".getBytes(StandardCharsets.UTF_8), null, Set.of()),
                new Credential("viewer", Role.VIEWER, "viewer-secret".getBytes(StandardCharsets.UTF_8), null, Set.of())));
        try (SchedulerNode a = SchedulerNode.start(broker, prefix, applicationId, PARTITIONS, credentials);
             SchedulerNode b = SchedulerNode.start(broker, prefix, applicationId, PARTITIONS, credentials)) {
            awaitSplit(a, b);
            String poolOfB = poolsOwnedByEach(a, b).entrySet().stream().filter(e -> e.getValue() == b)
                    .findFirst().orElseThrow().getKey();
            Api adminViaA = a.api.withToken("admin-secret");
            Api viewerViaA = a.api.withToken("viewer-secret");
            assertThat(adminViaA.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"fwd-1\"}".formatted(poolOfB))
                    .status()).isEqualTo(202);

            await().atMost(WAIT).untilAsserted(() -> {
                Api.Reply forwarded = viewerViaA.get("/v1/tasks/fwd-1?pool=" + poolOfB);
                assertThat(forwarded.status()).as(forwarded.toString()).isEqualTo(200);
                assertThat(forwarded.json().path("pool").asText()).isEqualTo(poolOfB);
            });
            Api.Reply fannedOut = viewerViaA.get("/v1/snapshot");
            assertThat(fannedOut.status()).as(fannedOut.toString()).isEqualTo(200);
            assertThat(a.api.get("/v1/tasks/fwd-1?pool=" + poolOfB).status()).isEqualTo(401);
        }
    }

    /** Waits until both instances run and each owns some input partitions. */
    private static void awaitSplit(SchedulerNode a, SchedulerNode b) {
        await().atMost(WAIT).until(() -> {
            for (SchedulerNode node : List.of(a, b)) {
                KafkaStreams streams = node.app.streams();
                if (streams.state() != KafkaStreams.State.RUNNING) {
                    return false;
                }
                long owners = streams.metadataForAllStreamsClients().stream()
                        .filter(m -> m.topicPartitions().stream()
                                .anyMatch(tp -> tp.topic().equals(node.app.topics().submissions().name())))
                        .count();
                if (owners < 2 || node.api.get("/readyz").status() != 200) {
                    return false;
                }
            }
            return true;
        });
    }

    /** Pool names chosen so that each instance owns {@value #POOLS_PER_INSTANCE} of them. */
    private static Map<String, SchedulerNode> poolsOwnedByEach(SchedulerNode a, SchedulerNode b) {
        HostInfo hostA = host(a);
        Map<String, SchedulerNode> owners = new LinkedHashMap<>();
        int ofA = 0;
        int ofB = 0;
        for (int i = 0; ofA + ofB < 2 * POOLS_PER_INSTANCE; i++) {
            String pool = "pool-" + i;
            HostInfo owner = a.app.streams().queryMetadataForKey(StoreNames.POOLS, pool, new StringSerializer())
                    .activeHost();
            boolean onA = owner.equals(hostA);
            if (onA && ofA < POOLS_PER_INSTANCE) {
                owners.put(pool, a);
                ofA++;
            } else if (!onA && ofB < POOLS_PER_INSTANCE) {
                owners.put(pool, b);
                ofB++;
            }
        }
        return owners;
    }

    private static HostInfo host(SchedulerNode node) {
        for (StreamsMetadata m : node.app.streams().metadataForAllStreamsClients()) {
            if (m.hostInfo().port() == node.gateway.port()) {
                return m.hostInfo();
            }
        }
        throw new AssertionError("no metadata for " + node.gateway.url());
    }

    private static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode item : array) {
            if (item.path(field).asText().equals(value)) {
                return item;
            }
        }
        throw new AssertionError("no " + field + "=" + value + " in " + array);
    }
}
