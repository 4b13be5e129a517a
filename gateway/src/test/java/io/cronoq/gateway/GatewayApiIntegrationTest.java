package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.HttpSchemaRegistry;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every endpoint of the gateway over HTTP, against one real scheduler on a real broker: writes go
 * to the topics, reads come back from the scheduler's stores. Each test works in its own pool.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GatewayApiIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static SchedulerNode node;
    private static Inputs inputs;
    private static Api api;

    @BeforeAll
    static void start() {
        node = SchedulerNode.start(broker, broker.uniqueName("gw") + ".", broker.uniqueName("scheduler"), 3);
        inputs = new Inputs(broker, node.app.topics());
        api = node.api;
        await().atMost(Duration.ofSeconds(60)).until(() -> api.get("/readyz").status() == 200);
    }

    @AfterAll
    static void stop() {
        inputs.close();
        node.close();
    }

    // ---- tasks ------------------------------------------------------------------------------------

    @Test
    void submittedTaskIsAcceptedAndThenShownWaitingWithTheSchedulersReason() {
        String pool = broker.uniqueName("submit");
        inputs.register(pool, "cpu-1", Map.of(), 1);
        awaitWorker(pool, "cpu-1");
        Api.Reply accepted = api.post("/v1/tasks", """
                {"pool":"%s","id":"t1","labels":{"gpu":"h100"},"payload":"hello",
                 "resources":{"cpu":"500m","memory":"8Gi","disk":1073741824,"gpu":1,"packages":["torch>=2.0,<3"]},
                 "priority":"high","deadline":"2030-01-01T00:00:00Z","timeout":"PT30S","maxAttempts":3,
                 "prefer":[{"labels":{"zone":"eu"},"weight":10}]}""".formatted(pool));

        assertThat(accepted.status()).as(accepted.toString()).isEqualTo(202);
        assertThat(accepted.json().path("id").asText()).isEqualTo("t1");
        JsonNode task = awaitTask("t1", t -> t.path("state").asText().equals("WAITING"));
        assertThat(task.path("pool").asText()).isEqualTo(pool);
        assertThat(task.path("labels")).isEqualTo(Api.JSON.valueToTree(Map.of("gpu", "h100")));
        assertThat(task.path("waiting").path("reason").asText()).as("the scheduler's words").contains("h100");
        assertThat(task.path("waiting").path("since").asText()).isNotEmpty();
        assertThat(task.path("resources").path("cpu").asText()).isEqualTo("500m");
        assertThat(task.path("resources").path("memory").asText()).isEqualTo("8Gi");
        assertThat(task.path("resources").path("disk").asText()).isEqualTo("1Gi");
        assertThat(task.path("resources").path("packages").get(0).asText()).isEqualTo("torch>=2.0,<3");
        assertThat(task.path("priority").asText()).isEqualTo("HIGH");
        assertThat(task.path("timeout").asText()).isEqualTo("PT30S");
        assertThat(task.path("maxAttempts").asInt()).isEqualTo(3);
        assertThat(task.path("prefer").get(0).path("weight").asInt()).isEqualTo(10);
        assertThat(task.path("payloadBytes").asInt()).isEqualTo(5);
        assertThat(task.path("attempts")).isEmpty();
    }

    @Test
    void waitingTasksShowWhenTheyWillStartAndThePoolWhenItsBacklogClears() {
        String pool = broker.uniqueName("eta");
        inputs.register(pool, "cpu-1", Map.of(), 1);
        awaitWorker(pool, "cpu-1");
        for (String id : new String[] {"eta-1", "eta-2", "eta-3"}) {
            assertThat(api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"%s\",\"timeout\":\"PT60S\"}"
                    .formatted(pool, id)).status()).isEqualTo(202);
        }
        JsonNode first = awaitTask("eta-1", t -> t.path("state").asText().equals("ASSIGNED"));
        java.time.Instant assigned = java.time.Instant.parse(first.path("attempts").get(0).path("assignedAt").asText());

        // Nothing has run yet: each attempt is taken to run its declared timeout, so every future agrees.
        JsonNode third = awaitTask("eta-3", t -> t.path("waiting").path("estimatedStart").isObject());
        JsonNode waiting = third.path("waiting");
        assertThat(waiting.path("position").asLong()).as(waiting.toString()).isEqualTo(1);
        assertThat(java.time.Instant.parse(waiting.path("estimatedStart").path("p50").asText()))
                .isEqualTo(assigned.plusSeconds(120));
        assertThat(waiting.path("estimatedStart").path("p10").asText())
                .isEqualTo(waiting.path("estimatedStart").path("p90").asText());
        assertThat(waiting.path("estimate").asText()).isEqualTo("1 ahead on unlabeled workers; run times taken at the "
                + "declared timeouts");

        Api.Reply forecast = api.get("/v1/pools/" + pool + "/forecast?limit=1");
        assertThat(forecast.status()).as(forecast.toString()).isEqualTo(200);
        assertThat(forecast.json().path("waiting").asLong()).isEqualTo(2);
        assertThat(forecast.json().path("first").findValuesAsText("id")).containsExactly("eta-2");
        assertThat(forecast.json().path("backlog").size()).isEqualTo(24);
        assertThat(api.get("/v1/pools/" + broker.uniqueName("nobody") + "/forecast").status()).isEqualTo(404);
    }

    @Test
    void sameIdSubmittedTwiceIsOneTask() {
        String pool = broker.uniqueName("dup");
        assertThat(api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"dup-1\",\"payload\":\"a\"}".formatted(pool))
                .status()).isEqualTo(202);
        assertThat(api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"dup-1\",\"payload\":\"bb\"}".formatted(pool))
                .status()).isEqualTo(202);
        Api.Reply second = api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"dup-2\"}".formatted(pool));
        assertThat(second.status()).isEqualTo(202);

        awaitTask("dup-2", t -> true);
        JsonNode page = api.get("/v1/tasks?pool=" + pool).json();
        assertThat(ids(page)).containsExactly("dup-2", "dup-1");
        assertThat(api.get("/v1/tasks/dup-1").json().path("payloadBytes").asInt()).as("the first submission wins")
                .isEqualTo(1);
    }

    @Test
    void submissionWithoutIdGetsOne() {
        Api.Reply accepted = api.post("/v1/tasks", "{\"pool\":\"%s\"}".formatted(broker.uniqueName("noid")));

        assertThat(accepted.status()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        assertThat(id).isNotBlank();
        awaitTask(id, t -> true);
    }

    static Stream<Arguments> invalidSubmissions() {
        return Stream.of(
                Arguments.of("{}", "pool"),
                Arguments.of("not json", "body"),
                Arguments.of("[1,2]", "body"),
                Arguments.of("{\"pool\":\"bad pool!\"}", "pool"),
                Arguments.of("{\"pool\":7}", "pool"),
                Arguments.of("{\"pool\":\"p\",\"id\":\"no spaces\"}", "id"),
                Arguments.of("{\"pool\":\"p\",\"colour\":\"red\"}", "colour"),
                Arguments.of("{\"pool\":\"p\",\"labels\":[\"gpu\"]}", "labels"),
                Arguments.of("{\"pool\":\"p\",\"labels\":{\"gpu\":\"a 100\"}}", "labels.gpu"),
                Arguments.of("{\"pool\":\"p\",\"resources\":{\"memory\":\"8GB\"}}", "resources.memory"),
                Arguments.of("{\"pool\":\"p\",\"resources\":{\"cpu\":\"0.0005\"}}", "resources.cpu"),
                Arguments.of("{\"pool\":\"p\",\"resources\":{\"gpu\":-1}}", "resources.gpu"),
                Arguments.of("{\"pool\":\"p\",\"resources\":{\"packages\":[\"torch=>2\"]}}", "resources.packages[0]"),
                Arguments.of("{\"pool\":\"p\",\"resources\":{\"ram\":\"1Gi\"}}", "resources.ram"),
                Arguments.of("{\"pool\":\"p\",\"payload\":\"a\",\"payloadBase64\":\"YQ==\"}", "payloadBase64"),
                Arguments.of("{\"pool\":\"p\",\"payloadBase64\":\"***\"}", "payloadBase64"),
                Arguments.of("{\"pool\":\"p\",\"priority\":\"URGENT\"}", "priority"),
                Arguments.of("{\"pool\":\"p\",\"deadline\":\"tomorrow\"}", "deadline"),
                Arguments.of("{\"pool\":\"p\",\"timeout\":\"30s\"}", "timeout"),
                Arguments.of("{\"pool\":\"p\",\"timeout\":\"PT-5S\"}", "timeout"),
                Arguments.of("{\"pool\":\"p\",\"tolerance\":\"PT1M\"}", "tolerance"),
                Arguments.of("{\"pool\":\"p\",\"maxAttempts\":0}", "maxAttempts"),
                Arguments.of("{\"pool\":\"p\",\"maxAttempts\":1.5}", "maxAttempts"),
                Arguments.of("{\"pool\":\"p\",\"backoff\":\"5s\"}", "backoff"),
                Arguments.of("{\"pool\":\"p\",\"backoff\":\"PT1M\",\"maxBackoff\":\"PT1S\"}", "maxBackoff"),
                Arguments.of("{\"pool\":\"p\",\"prefer\":[{\"labels\":{\"zone\":\"eu\"},\"weight\":0}]}",
                        "prefer[0].weight"),
                Arguments.of("{\"pool\":\"p\",\"prefer\":[{\"labels\":{}}]}", "prefer[0].labels"));
    }

    @ParameterizedTest(name = "{0} -> 400 on {1}")
    @MethodSource("invalidSubmissions")
    void invalidSubmissionIsRefusedWith400NamingTheField(String body, String field) {
        Api.Reply reply = api.post("/v1/tasks", body);

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        JsonNode error = reply.json().path("error");
        assertThat(error.path("code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(error.path("field").asText()).isEqualTo(field);
        assertThat(error.path("message").asText()).isNotBlank();
    }

    @Test
    void unknownTaskIs404AndABadIdIs400() {
        Api.Reply missing = api.get("/v1/tasks/no-such-task");
        Api.Reply bad = api.get("/v1/tasks/bad%20id");
        Api.Reply cancelMissing = api.delete("/v1/tasks/no-such-task");

        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.json().path("error").path("code").asText()).isEqualTo("NOT_FOUND");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("error").path("field").asText()).isEqualTo("id");
        assertThat(cancelMissing.status()).isEqualTo(404);
    }

    @Test
    void taskPagesAreNewestFirstFilteredAndFollowTheNextToken() {
        String pool = broker.uniqueName("page");
        for (int i = 1; i <= 5; i++) {
            assertThat(api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"p%d\"}".formatted(pool, i)).status())
                    .isEqualTo(202);
        }
        await().atMost(WAIT).until(() -> ids(api.get("/v1/tasks?pool=" + pool).json()).size() == 5);

        JsonNode first = api.get("/v1/tasks?pool=" + pool + "&limit=2").json();
        JsonNode second = api.get("/v1/tasks?pool=" + pool + "&limit=2&before=" + first.path("next").asText()).json();
        JsonNode third = api.get("/v1/tasks?pool=" + pool + "&limit=2&before=" + second.path("next").asText()).json();

        List<String> all = new ArrayList<>(ids(first));
        all.addAll(ids(second));
        all.addAll(ids(third));
        assertThat(all).containsExactlyInAnyOrder("p1", "p2", "p3", "p4", "p5").doesNotHaveDuplicates();
        assertThat(ids(third)).hasSize(1);
        assertThat(third.path("next").isNull()).isTrue();
        assertThat(ids(api.get("/v1/tasks?pool=" + pool + "&state=waiting").json())).hasSize(5);
        assertThat(ids(api.get("/v1/tasks?pool=" + pool + "&state=SUCCEEDED").json())).isEmpty();
        assertThat(ids(api.get("/v1/tasks?state=WAITING&limit=500").json())).contains("p1", "p5");
    }

    @Test
    void badListParametersAre400NamingThem() {
        assertThat(error(api.get("/v1/tasks?state=DONE"), 400)).isEqualTo("state");
        assertThat(error(api.get("/v1/tasks?limit=0"), 400)).isEqualTo("limit");
        assertThat(error(api.get("/v1/tasks?limit=ten"), 400)).isEqualTo("limit");
        assertThat(error(api.get("/v1/tasks?before=nonsense"), 400)).isEqualTo("before");
        assertThat(error(api.get("/v1/tasks?pool=a%20b"), 400)).isEqualTo("pool");
        assertThat(error(api.get("/v1/workers?state=SLEEPING"), 400)).isEqualTo("state");
    }

    @Test
    void completedTaskShowsItsAttemptHistory() {
        String pool = broker.uniqueName("history");
        inputs.register(pool, "cpu-1", Map.of(), 1);
        awaitWorker(pool, "cpu-1");
        api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"h1\"}".formatted(pool));
        api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"h2\"}".formatted(pool));
        awaitTask("h1", t -> t.path("state").asText().equals("ASSIGNED"));

        inputs.start(pool, "h1", 1, "cpu-1", 1);
        inputs.fail(pool, "h1", 1, "cpu-1", 1, "exit code 3");

        JsonNode h1 = awaitTask("h1", t -> t.path("state").asText().equals("FAILED"));
        JsonNode attempt = h1.path("attempts").get(0);
        assertThat(attempt.path("attempt").asInt()).isEqualTo(1);
        assertThat(attempt.path("worker").asText()).isEqualTo("cpu-1");
        assertThat(attempt.path("group").size()).isZero();
        assertThat(attempt.path("generation").asLong()).isEqualTo(1);
        assertThat(attempt.path("assignedAt").asText()).isNotEmpty();
        assertThat(attempt.path("startedAt").asText()).isNotEmpty();
        assertThat(attempt.path("finishedAt").asText()).isNotEmpty();
        assertThat(attempt.path("outcome").asText()).isEqualTo("FAILED");
        assertThat(attempt.path("error").asText()).isEqualTo("exit code 3");
        assertThat(h1.path("waiting").isNull()).isTrue();
        JsonNode h2 = awaitTask("h2", t -> t.path("state").asText().equals("ASSIGNED"));
        assertThat(h2.path("attempts").get(0).path("worker").asText()).as("the freed slot went to h2")
                .isEqualTo("cpu-1");

        inputs.start(pool, "h2", 1, "cpu-1", 1);
        inputs.send(pool, new io.cronoq.events.AttemptSucceeded("h2", pool, 1, "cpu-1", 1L, java.time.Instant.now(),
                java.nio.ByteBuffer.wrap("{\"rows\": 42}".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        JsonNode done = awaitTask("h2", t -> t.path("state").asText().equals("SUCCEEDED"));
        assertThat(done.path("result").asText()).as("the success's result, kept with the task").isEqualTo("{\"rows\": 42}");
        assertThat(done.path("resultBase64").isNull()).isTrue();
        assertThat(h1.path("result").isNull()).as("a failed task has none").isTrue();
    }

    @Test
    void cancelTakesAWaitingTaskOutAndAFinishedOneCannotBeCancelled() {
        String pool = broker.uniqueName("cancel");
        api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"c1\"}".formatted(pool));
        awaitTask("c1", t -> t.path("state").asText().equals("WAITING"));

        Api.Reply cancelled = api.delete("/v1/tasks/c1?reason=changed+my+mind");

        assertThat(cancelled.status()).as(cancelled.toString()).isEqualTo(202);
        assertThat(cancelled.json().path("pool").asText()).isEqualTo(pool);
        awaitTask("c1", t -> t.path("state").asText().equals("CANCELLED"));
        Api.Reply again = api.delete("/v1/tasks/c1");
        assertThat(again.status()).isEqualTo(400);
        assertThat(again.json().path("error").path("message").asText()).contains("already CANCELLED");
    }

    // ---- snapshot -----------------------------------------------------------------------------------

    @Test
    void snapshotShowsEachPoolWithItsGroupsWaitingAndDemand() {
        String pool = broker.uniqueName("snap");
        inputs.register(pool, "cpu-1", Map.of(), 2);
        inputs.register(pool, "gpu-1", Map.of("gpu", "a100"), 1);
        awaitWorker(pool, "gpu-1");
        for (String body : List.of("{\"id\":\"s1\"}", "{\"id\":\"s2\"}", "{\"id\":\"g1\",\"labels\":{\"gpu\":\"a100\"}}",
                "{\"id\":\"s3\"}", "{\"id\":\"x1\",\"labels\":{\"gpu\":\"h100\"}}")) {
            String json = body.replaceFirst("\\{", "{\"pool\":\"" + pool + "\",");
            assertThat(api.post("/v1/tasks", json).status()).isEqualTo(202);
        }

        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode p = poolOf(api.get("/v1/snapshot").json(), pool);
            assertThat(p.path("capacity").asInt()).isEqualTo(3);
            assertThat(p.path("busy").asInt()).isEqualTo(3);
            assertThat(p.path("waiting").asInt()).isEqualTo(2);
        });
        JsonNode p = api.get("/v1/snapshot?pool=" + pool).json().path("pools").get(0);
        assertThat(p.path("pool").asText()).isEqualTo(pool);
        assertThat(p.path("demand").asInt()).as("3 busy + s3 (x1 needs h100, which no group has): " + p).isEqualTo(4);
        assertThat(p.path("unservable").asInt()).isEqualTo(1);
        assertThat(p.path("oldestWaitingMs").isNumber()).isTrue();
        JsonNode plain = p.path("groups").get(0);
        JsonNode gpu = p.path("groups").get(1);
        assertThat(plain.path("labels").size()).isZero();
        assertThat(List.of(plain.path("capacity").asInt(), plain.path("busy").asInt(), plain.path("workers").asInt(),
                plain.path("waiting").asInt())).containsExactly(2, 2, 1, 1);
        assertThat(gpu.path("labels").path("gpu").asText()).isEqualTo("a100");
        assertThat(gpu.path("key").asText()).isEqualTo("gpu=a100");
        assertThat(List.of(gpu.path("capacity").asInt(), gpu.path("busy").asInt(), gpu.path("waiting").asInt()))
                .as("s3 could run on the GPU group too").containsExactly(1, 1, 1);
    }

    @Test
    void unknownPoolIs404AndABadPoolIs400() {
        Api.Reply unknown = api.get("/v1/snapshot?pool=no-such-pool");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().path("error").path("code").asText()).isEqualTo("NOT_FOUND");
        assertThat(error(api.get("/v1/snapshot?pool=%2Fslash"), 400)).isEqualTo("pool");
    }

    // ---- workers ------------------------------------------------------------------------------------

    @Test
    void workersAreListedReadAndDrained() {
        String pool = broker.uniqueName("workers");
        inputs.register(pool, "w1", Map.of("zone", "eu"), 2);
        inputs.register(pool, "w2", Map.of(), 1);
        awaitWorker(pool, "w2");

        JsonNode list = api.get("/v1/workers?pool=" + pool).json().path("workers");
        assertThat(list).hasSize(2);
        JsonNode w1 = api.get("/v1/workers/w1?pool=" + pool).json();
        assertThat(w1.path("pool").asText()).isEqualTo(pool);
        assertThat(w1.path("labels").path("zone").asText()).isEqualTo("eu");
        assertThat(w1.path("slots").asInt()).isEqualTo(2);
        assertThat(w1.path("busy").asInt()).isZero();
        assertThat(w1.path("state").asText()).isEqualTo("ACTIVE");
        assertThat(w1.path("generation").asLong()).isEqualTo(1);
        assertThat(w1.path("lastHeartbeat").asText()).isNotEmpty();

        Api.Reply drained = api.post("/v1/workers/w1/drain?pool=" + pool, "");
        assertThat(drained.status()).as(drained.toString()).isEqualTo(202);
        await().atMost(WAIT).until(() -> api.get("/v1/workers/w1?pool=" + pool).json().path("state").asText()
                .equals("DRAINING"));
        assertThat(poolOf(api.get("/v1/snapshot").json(), pool).path("capacity").asInt())
                .as("a draining worker's slots leave capacity").isEqualTo(1);
        assertThat(api.get("/v1/workers?pool=" + pool + "&state=DRAINING").json().path("workers")).hasSize(1);

        inputs.leave(pool, "w2");
        await().atMost(WAIT).until(() -> api.get("/v1/workers/w2?pool=" + pool).json().path("state").asText()
                .equals("LEFT"));
        assertThat(error(api.post("/v1/workers/w2/drain?pool=" + pool, ""), 400)).isEqualTo("id");
    }

    @Test
    void unknownWorkerIs404AndAnIdInTwoPoolsNeedsThePool() {
        String a = broker.uniqueName("twin-a");
        String b = broker.uniqueName("twin-b");
        inputs.register(a, "twin", Map.of(), 1);
        inputs.register(b, "twin", Map.of(), 1);
        awaitWorker(a, "twin");
        awaitWorker(b, "twin");

        assertThat(error(api.get("/v1/workers/nobody"), 404)).isNull();
        assertThat(error(api.post("/v1/workers/nobody/drain", ""), 404)).isNull();
        assertThat(error(api.get("/v1/workers/twin"), 400)).isEqualTo("pool");
        assertThat(api.get("/v1/workers/twin?pool=" + b).json().path("pool").asText()).isEqualTo(b);
    }

    // ---- metrics, health, schemas, errors ---------------------------------------------------------------

    @Test
    void metricsExposePoolAndGroupGaugesJournalCountersDeadLettersAndStreamsMetrics() {
        String pool = broker.uniqueName("metrics");
        inputs.register(pool, "gpu-1", Map.of("gpu", "a100"), 2);
        awaitWorker(pool, "gpu-1");
        api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"m1\",\"labels\":{\"gpu\":\"a100\"}}".formatted(pool));
        awaitTask("m1", t -> t.path("state").asText().equals("ASSIGNED"));
        inputs.poison(pool);

        await().atMost(WAIT).untilAsserted(() -> {
            String metrics = api.get("/metrics").text();
            assertThat(value(metrics, "cronoq_pool_capacity", "pool=\"" + pool + "\"")).isEqualTo(2.0);
            assertThat(value(metrics, "cronoq_pool_busy", "pool=\"" + pool + "\"")).isEqualTo(1.0);
            assertThat(value(metrics, "cronoq_pool_demand", "pool=\"" + pool + "\"")).isEqualTo(1.0);
            assertThat(value(metrics, "cronoq_pool_oldest_waiting_seconds", "pool=\"" + pool + "\"")).isEqualTo(0.0);
            assertThat(value(metrics, "cronoq_group_capacity", "group=\"gpu=a100\",pool=\"" + pool + "\""))
                    .isEqualTo(2.0);
            assertThat(value(metrics, "cronoq_group_busy", "group=\"gpu=a100\",pool=\"" + pool + "\"")).isEqualTo(1.0);
            assertThat(value(metrics, "cronoq_placements_total", "group=\"gpu=a100\",pool=\"" + pool + "\""))
                    .isEqualTo(1.0);
            assertThat(value(metrics, "cronoq_submissions_total", "pool=\"" + pool + "\"")).isEqualTo(1.0);
            assertThat(value(metrics, "cronoq_dead_letters", null)).isEqualTo(1.0);
            assertThat(metrics).contains("kafka_stream_");
        });
    }

    @Test
    void healthIsUpAndReadinessReportsTheRunningScheduler() {
        Api.Reply health = api.get("/healthz");
        Api.Reply ready = api.get("/readyz");

        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("UP");
        assertThat(ready.status()).isEqualTo(200);
        assertThat(ready.json().path("streams").asText()).isEqualTo("RUNNING");
    }

    @Test
    void schemaPathsServeTheRegistryTheConfluentWay() {
        String subject = node.app.topics().submissions().name() + "-value";
        api.post("/v1/tasks", "{\"pool\":\"%s\"}".formatted(broker.uniqueName("schemas"))); // registers the subject

        Api.Reply subjects = api.get("/subjects");
        assertThat(subjects.header("Content-Type")).startsWith("application/vnd.schemaregistry.v1+json");
        assertThat(subjects.json()).extracting(JsonNode::asText).contains(subject);
        assertThat(api.get("/subjects/" + subject + "/versions").json().get(0).asInt()).isEqualTo(1);
        JsonNode v1 = api.get("/subjects/" + subject + "/versions/1").json();
        assertThat(v1.path("subject").asText()).isEqualTo(subject);
        assertThat(v1.path("version").asInt()).isEqualTo(1);
        assertThat(v1.path("schema").asText()).contains("SubmissionEvent");
        assertThat(api.get("/subjects/" + subject + "/versions/latest").json().path("id")).isEqualTo(v1.path("id"));
        JsonNode byId = api.get("/schemas/ids/" + v1.path("id").asInt()).json();
        assertThat(byId.path("schema").asText()).isEqualTo(v1.path("schema").asText());

        assertConfluentError(api.get("/subjects/nope-value/versions"), 404, 40401);
        assertConfluentError(api.get("/subjects/nope-value/versions/latest"), 404, 40401);
        assertConfluentError(api.get("/subjects/" + subject + "/versions/99"), 404, 40402);
        assertConfluentError(api.get("/schemas/ids/12345"), 404, 40403);
        assertConfluentError(api.get("/subjects/" + subject + "/versions/first"), 422, 42202);
    }

    @Test
    void aStandardRegistryClientPointedAtTheGatewayDecodesTheJournal() {
        String pool = broker.uniqueName("decode");
        api.post("/v1/tasks", "{\"pool\":\"%s\",\"id\":\"d1\"}".formatted(pool));
        awaitTask("d1", t -> true);

        try (var registry = new HttpSchemaRegistry(node.gateway.url());
             var consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("decoder")),
                     new StringDeserializer(), new ByteArrayDeserializer())) {
            AvroSerde<JournalEntry> serde = AvroSerde.of(JournalEntry.class, registry);
            consumer.subscribe(List.of(node.app.topics().journal().name()));
            List<JournalEntry> entries = new ArrayList<>();
            await().atMost(WAIT).until(() -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (pool.equals(r.key())) {
                        entries.add(serde.deserialize(r.topic(), r.value()));
                    }
                }
                return !entries.isEmpty();
            });
            assertThat(entries.get(0).getPool()).isEqualTo(pool);
        }
    }

    @Test
    void unknownPathIs404InTheApiErrorShape() {
        Api.Reply reply = api.get("/v1/nothing-here");

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.json().path("error").path("code").asText()).isEqualTo("NOT_FOUND");
        assertThat(reply.json().path("error").path("message").asText()).contains("/openapi.json");
    }

    @Test
    void dashboardAndOpenApiAreServed() {
        Api.Reply page = api.get("/");
        Api.Reply openApi = api.get("/openapi.json");

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.text()).contains("<script src=\"/app.js\">");
        assertThat(api.get("/app.js").status()).isEqualTo(200);
        assertThat(openApi.status()).isEqualTo(200);
        assertThat(openApi.json().path("openapi").asText()).startsWith("3.");
    }

    // ---- helpers ---------------------------------------------------------------------------------------

    private static JsonNode awaitTask(String id, java.util.function.Predicate<JsonNode> condition) {
        JsonNode[] seen = new JsonNode[1];
        await().atMost(WAIT).until(() -> {
            Api.Reply reply = api.get("/v1/tasks/" + id);
            seen[0] = reply.status() == 200 ? reply.json() : null;
            return seen[0] != null && condition.test(seen[0]);
        });
        return seen[0];
    }

    private static void awaitWorker(String pool, String id) {
        await().atMost(WAIT).until(() -> api.get("/v1/workers/" + id + "?pool=" + pool).status() == 200);
    }

    private static List<String> ids(JsonNode page) {
        List<String> ids = new ArrayList<>();
        page.path("tasks").forEach(t -> ids.add(t.path("id").asText()));
        return ids;
    }

    private static JsonNode poolOf(JsonNode snapshot, String pool) {
        for (JsonNode p : snapshot.path("pools")) {
            if (p.path("pool").asText().equals(pool)) {
                return p;
            }
        }
        throw new AssertionError("no pool " + pool + " in " + snapshot);
    }

    /** The field of an API error with this status (null when the error names none). */
    private static String error(Api.Reply reply, int status) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
        JsonNode field = reply.json().path("error").path("field");
        return field.isMissingNode() ? null : field.asText();
    }

    private static void assertConfluentError(Api.Reply reply, int status, int code) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
        assertThat(reply.header("Content-Type")).startsWith("application/vnd.schemaregistry.v1+json");
        assertThat(reply.json().path("error_code").asInt()).isEqualTo(code);
        assertThat(reply.json().path("message").asText()).isNotBlank();
    }

    /** The value of one Prometheus sample, or null when absent. */
    private static Double value(String metrics, String name, String labels) {
        String pattern = "(?m)^" + Pattern.quote(name) + (labels == null ? "" : "\\{" + Pattern.quote(labels) + "\\}")
                + " ([0-9.eE+-]+)$";
        Matcher m = Pattern.compile(pattern).matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }
}
