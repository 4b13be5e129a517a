package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.InMemorySchemaRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code /v1/gangs} in Javalin's test server over a state in memory: what a gang's submit writes (one
 * {@link GangSubmitted} holding every member) and answers, each refusal with its field and message (and nothing
 * written), and a gang read back from its members' task records.
 */
class GangRoutesTest {

    private static final String JSON = "application/json";

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .task(MemoryState.task("taken-1", "ours", "WAITING", Map.of(), null))
            .task(MemoryState.member("again", 0, 2, "ours", "WAITING", null, "waiting for 2 workers"))
            .task(MemoryState.member("again", 1, 2, "ours", "WAITING", null, "waiting for 2 workers"));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, commands);

    @Test
    void aGangOfOneTaskNTimesIs202WithItsMemberIdsAndWritesOneGangSubmitted() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/gangs", null, JSON, """
                    {"pool":"ours","id":"train","size":3,"placement":"spread","sameLabel":"rack",
                     "task":{"labels":{"gpu":"a100"},"payload":"hi","tenant":"research","timeout":"PT1H"}}""");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("id").asText()).isEqualTo("train");
            assertThat(answer.json().path("pool").asText()).isEqualTo("ours");
            assertThat(answer.json().path("members")).extracting(JsonNode::asText)
                    .containsExactly("train-0", "train-1", "train-2");
            GangSubmitted gang = commands.only(GangSubmitted.class);
            assertThat(commands.written(TaskSubmitted.class)).as("the members travel inside the gang").isEmpty();
            assertThat(gang.getGangId()).isEqualTo("train");
            assertThat(gang.getPool()).isEqualTo("ours");
            assertThat(gang.getPlacement()).isEqualTo(GangPlacement.SPREAD);
            assertThat(gang.getSameLabel()).isEqualTo("rack");
            assertThat(gang.getSubmittedAt()).as("the gateway's clock").isEqualTo(TestGateway.NOW);
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTaskId)
                    .containsExactly("train-0", "train-1", "train-2");
            assertThat(gang.getMembers()).allSatisfy(member -> {
                assertThat(member.getPool()).isEqualTo("ours");
                assertThat(member.getTenant()).isEqualTo("research");
                assertThat(member.getLabels()).isEqualTo(Map.of("gpu", "a100"));
                assertThat(StandardCharsets.UTF_8.decode(member.getPayload().duplicate()).toString()).isEqualTo("hi");
                assertThat(member.getTimeoutMs()).isEqualTo(3_600_000L);
                assertThat(member.getSubmittedAt()).isEqualTo(TestGateway.NOW);
                assertThat(member.getGang()).as("the scheduler sets it on the members it accepts").isNull();
            });
        });
    }

    @Test
    void aGangOfDifferentMembersKeepsTheirRankOrderAndPlacementDefaultsToAny() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/gangs", null, JSON, """
                    {"pool":"ours","id":"job","members":[
                      {"payload":"coordinator","resources":{"cpu":"1"}},
                      {"payload":"worker","labels":{"gpu":"a100"}},
                      {"payload":"worker","labels":{"gpu":"a100"},"pool":"ours"}]}""");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            GangSubmitted gang = commands.only(GangSubmitted.class);
            assertThat(gang.getPlacement()).isEqualTo(GangPlacement.ANY);
            assertThat(gang.getSameLabel()).isNull();
            assertThat(gang.getSubmitter()).as("an open gateway: the members' submitter, here none").isNull();
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTaskId).containsExactly("job-0", "job-1", "job-2");
            assertThat(gang.getMembers()).extracting(m -> StandardCharsets.UTF_8.decode(m.getPayload().duplicate())
                    .toString()).containsExactly("coordinator", "worker", "worker");
            assertThat(gang.getMembers().get(0).getResources().getCpuMillis()).isEqualTo(1000L);
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTenant).as("none: the tenant default")
                    .containsOnlyNulls();
        });
    }

    @Test
    void membersKeepTheConcurrencyKeysAndRateLimitsTheGangMeetsAsAWhole() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/gangs", null, JSON, """
                    {"pool":"ours","id":"licensed","size":2,
                     "task":{"concurrency":[{"key":"licence","max":4}],"rateLimits":[{"name":"openai","units":2}]}}""");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(commands.only(GangSubmitted.class).getMembers()).allSatisfy(member -> {
                assertThat(member.getConcurrency()).singleElement().satisfies(k -> {
                    assertThat(k.getKey()).isEqualTo("licence");
                    assertThat(k.getMax()).isEqualTo(4);
                });
                assertThat(member.getRateLimits()).singleElement().satisfies(r -> {
                    assertThat(r.getName()).isEqualTo("openai");
                    assertThat(r.getUnits()).isEqualTo(2);
                });
            });
        });
    }

    @Test
    void aSpreadGangTheWorkerCredentialsCouldNeverHoldIs400OnPlacementAndWritesNothing() {
        Credentials fleet = Credentials.of(java.util.List.of(
                new io.cronoq.scheduler.auth.Credential("submitter", io.cronoq.scheduler.auth.Role.SUBMITTER,
                        TestGateway.secret("submitter").getBytes(StandardCharsets.UTF_8), null, java.util.Set.of(), null),
                new io.cronoq.scheduler.auth.Credential("worker", io.cronoq.scheduler.auth.Role.WORKER,
                        TestGateway.secret("worker").getBytes(StandardCharsets.UTF_8), java.util.Set.of("ours"),
                        java.util.Set.of("gpu=a100"), java.util.List.of("w1", "w2"))));
        TestGateway.test(TestGateway.context(fleet, state, commands), (server, client) -> {
            String body = "{\"pool\":\"ours\",\"id\":\"wide\",\"size\":3,\"placement\":\"spread\","
                    + "\"task\":{\"labels\":{\"gpu\":\"a100\"}}}";

            assertThat(refused(call(client, "POST", "/v1/gangs", "submitter", JSON, body), 400, "placement"))
                    .contains("let at most 2 workers register with what the members require (w1, w2)");
            assertThat(commands.written(GangSubmitted.class)).isEmpty();
            assertThat(call(client, "POST", "/v1/gangs", "submitter", JSON, body.replace("3", "2")).status())
                    .isEqualTo(202);
        });
    }

    @Test
    void withTokensTheCallerSubmitsEveryMemberForItsTenantInItsOwnPoolsOnly() {
        TestGateway.test(secured, (server, client) -> {
            String body = "{\"pool\":\"ours\",\"id\":\"ci-gang\",\"size\":2,\"task\":{\"payload\":\"x\"}}";
            refused(call(client, "POST", "/v1/gangs", null, JSON, body), 401, null);
            refused(call(client, "POST", "/v1/gangs", "viewer", JSON, body), 403, null);
            refused(call(client, "POST", "/v1/gangs", "submitter", JSON, body.replace("\"ours\"", "\"theirs\"")), 403,
                    null);
            assertThat(refused(call(client, "POST", "/v1/gangs", "ci", JSON,
                    "{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{},{\"tenant\":\"default\"}]}"), 403,
                    "members[1].tenant")).contains("token 'ci' submits for tenant research only");
            assertThat(refused(call(client, "POST", "/v1/gangs", "ci", JSON,
                    "{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{\"submitter\":\"else\"}}"), 400,
                    "task.submitter")).contains("from the calling credential ('ci')");
            assertThat(commands.written(GangSubmitted.class)).isEmpty();

            assertThat(call(client, "POST", "/v1/gangs", "ci", JSON, body).status()).isEqualTo(202);

            GangSubmitted gang = commands.only(GangSubmitted.class);
            assertThat(gang.getSubmitter()).isEqualTo("ci");
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getTenant).containsExactly("research", "research");
            assertThat(gang.getMembers()).extracting(TaskSubmitted::getSubmitter).containsExactly("ci", "ci");
        });
    }

    static Stream<Arguments> refusals() {
        String big = "x".repeat(300_000);
        return Stream.of(
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":0,\"task\":{}}", "size",
                        "size is 0; a gang has 1 to 1024 members (the gateway's cronoq.http.gang.max.size)"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":1025,\"task\":{}}", "size",
                        "size is 1025; a gang has 1 to 1024 members"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[]}", "members",
                        "members lists 0; a gang has 1 to 1024 members"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"members\":[{}]}", "size",
                        "give size with task (that many copies of one task) or members (a list of tasks), not both"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\"}", "members", "a gang needs members: give \"size\": N"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"task\":{}}", "size", "size is required with task"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2}", "task", "task is required with size"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{}],\"task\":{}}", "task",
                        "task goes with size"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":{}}", "members",
                        "members must be a list of tasks"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":[]}", "task",
                        "task must be an object of a task's fields"),
                Arguments.of("{\"id\":\"g\",\"size\":2,\"task\":{}}", "pool", "pool is required"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"-g\",\"size\":2,\"task\":{}}", "id",
                        "gangId is '-g'; a gang id is a task id"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"" + "a".repeat(250) + "\",\"size\":2,\"task\":{}}", "id",
                        "a gang id is a task id of at most 249 characters"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"sameLabel\":\" \"}", "sameLabel",
                        "sameLabel is blank"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"sameLabel\":\"rack!\"}",
                        "sameLabel", "sameLabel is 'rack!'; it names one label key"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"placement\":\"diagonal\"}",
                        "placement", "placement 'diagonal' is not one of any"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"sameLabel\":\"rack\",\"members\":[{\"labels\":"
                        + "{\"rack\":\"r1\"}},{},{\"labels\":{\"rack\":\"r2\"}}]}", "sameLabel",
                        "members require rack=r1 and rack=r2, so they can never share one value of rack; require one "
                                + "value or drop sameLabel"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{},{},{\"labels\":{\"g pu\":\"x\"}}]}",
                        "members[2].labels", "members[2]: label name 'g pu'"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{\"resources\":{\"memory\":\"8GB\"}}}",
                        "task.resources.memory", "task: resources.memory"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{\"state\":\"WAITING\"}}",
                        "task.state", "set by the server"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{},{\"pool\":\"theirs\"}]}", "members[1].pool",
                        "members[1] names pool 'theirs' and the gang pool 'ours': every member runs in the gang's pool"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{\"id\":\"mine\"}]}", "members[0].id",
                        "a member's id is the gang's id and its rank (g-0), set by the gateway"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{},{\"tenant\":\"research\"}]}",
                        "members[1].tenant", "members[1].tenant is research and members[0].tenant is null; a gang "
                                + "runs for one tenant"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{},{\"priority\":\"HIGH\"}]}",
                        "members[1].priority", "members[1].priority is HIGH and members[0].priority is NORMAL; a gang "
                                + "has one priority"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{\"timeout\":\"PT1M\"},"
                        + "{\"timeout\":\"PT0S\"}]}", "members[1].timeout", "members[1]: timeoutMs is 0"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":3,\"task\":{\"concurrency\":[{\"key\":\"k\",\"max\":2}]}}",
                        "task.concurrency[0].max", "3 members name concurrency key k and members[0] allows at "
                                + "most 2 holders; a gang's members start together, so raise the max to at least 3"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{\"startAt\":\"2026-06-02T00:00:00Z\"}}",
                        "task.startAt", "gangs do not take a fixed start (startAt) yet"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"members\":[{\"notBefore\":\"2026-06-02T00:00:00Z\"}]}",
                        "members[0].notBefore", "gangs do not take a not-before time (notBefore) yet"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{\"payload\":\"" + big + "\"}}",
                        "task.payload", "a gang travels as one Kafka record, so its members are at most 524288 bytes"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"priority\":\"HIGH\"}", "priority",
                        "unknown field 'priority'; a gang has pool, id, size, task, members, placement, sameLabel"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"g\",\"size\":2,\"task\":{},\"state\":\"WAITING\"}", "state",
                        "state is set by the server"),
                Arguments.of("{\"pool\":\"ours\",\"id\":\"taken\",\"size\":3,\"task\":{}}", "id",
                        "task taken-1 already exists in pool ours and is no member of gang taken; the members' ids are "
                                + "taken-0 to taken-2: choose another gang id"));
    }

    @ParameterizedTest(name = "{1}: {2}")
    @MethodSource("refusals")
    void aBadGangIs400NamingTheFieldAndTheFixAndWritesNothing(String body, String field, String message) {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(call(client, "POST", "/v1/gangs", null, JSON, body), 400, field)).contains(message);
            assertThat(commands.written(GangSubmitted.class)).isEmpty();
        });
    }

    @Test
    void theMostMembersIsTheGatewaysSetting() {
        GatewayContext small = new GatewayContext(state, state, commands, new InMemorySchemaRegistry(),
                () -> TestGateway.METRICS, Clock.fixed(TestGateway.NOW, ZoneOffset.UTC), Credentials.none(),
                HistorySource.NONE, 4);
        TestGateway.test(small, (server, client) -> {
            assertThat(refused(call(client, "POST", "/v1/gangs", null, JSON,
                    "{\"pool\":\"ours\",\"id\":\"g\",\"size\":5,\"task\":{}}"), 400, "size"))
                    .contains("a gang has 1 to 4 members");
            assertThat(call(client, "POST", "/v1/gangs", null, JSON,
                    "{\"pool\":\"ours\",\"id\":\"g\",\"size\":4,\"task\":{}}").status()).isEqualTo(202);
            assertThat(commands.only(GangSubmitted.class).getMembers()).hasSize(4);
        });
    }

    @Test
    void anIdTakenInAnotherPoolOrByTheSameGangIsNoCollision() {
        TestGateway.test(open, (server, client) -> {
            assertThat(call(client, "POST", "/v1/gangs", null, JSON,
                    "{\"pool\":\"theirs\",\"id\":\"taken\",\"size\":3,\"task\":{}}").status()).isEqualTo(202);
            assertThat(call(client, "POST", "/v1/gangs", null, JSON,
                    "{\"pool\":\"ours\",\"id\":\"again\",\"size\":2,\"task\":{}}").status())
                    .as("the same gang sent again (after a timeout, say) is one gang").isEqualTo(202);
            assertThat(commands.written(GangSubmitted.class)).extracting(GangSubmitted::getGangId)
                    .containsExactly("taken", "again");
        });
    }

    @Test
    void aGangWithoutAnIdGetsOne() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/gangs", null, JSON,
                    "{\"pool\":\"ours\",\"size\":2,\"task\":{}}");
            String id = commands.only(GangSubmitted.class).getGangId();

            assertThat(answer.json().path("id").asText()).isEqualTo(id).isNotBlank();
            assertThat(answer.json().path("members")).extracting(JsonNode::asText).containsExactly(id + "-0", id + "-1");
        });
    }

    @Test
    void aGangReadsFromItsMembersTaskRecords() {
        state.task(MemoryState.member("train", 0, 3, "ours", "RUNNING", "w-1", null))
                .task(MemoryState.member("train", 1, 3, "ours", "RUNNING", "w-2", null))
                .task(MemoryState.member("train", 2, 3, "ours", "ASSIGNED", "w-3", null));
        TestGateway.test(open, (server, client) -> {
            JsonNode gang = ok(get(client, "/v1/gangs/train", null));

            assertThat(gang.path("id").asText()).isEqualTo("train");
            assertThat(gang.path("pool").asText()).isEqualTo("ours");
            assertThat(gang.path("size").asInt()).isEqualTo(3);
            assertThat(gang.path("placement").asText()).isEqualTo("SPREAD");
            assertThat(gang.path("sameLabel").asText()).isEqualTo("rack");
            assertThat(gang.path("state").asText()).isEqualTo("RUNNING");
            assertThat(gang.path("reason").isNull()).isTrue();
            assertThat(gang.path("members")).hasSize(3);
            JsonNode last = gang.path("members").get(2);
            assertThat(last.path("taskId").asText()).isEqualTo("train-2");
            assertThat(last.path("rank").asInt()).isEqualTo(2);
            assertThat(last.path("state").asText()).isEqualTo("ASSIGNED");
            assertThat(last.path("workerId").asText()).isEqualTo("w-3");
            assertThat(last.path("attempt").asInt()).isEqualTo(1);
            assertThat(ok(get(client, "/v1/gangs/train?pool=ours", null))).isEqualTo(gang);
        });
    }

    @Test
    void aWaitingGangSaysWhyAndAFailedMemberFailsTheGang() {
        state.task(MemoryState.member("broken", 0, 2, "ours", "FAILED", "w-1", null))
                .task(MemoryState.member("broken", 1, 2, "ours", "SUCCEEDED", "w-2", null));
        TestGateway.test(open, (server, client) -> {
            JsonNode waiting = ok(get(client, "/v1/gangs/again", null));
            JsonNode failed = ok(get(client, "/v1/gangs/broken", null));

            assertThat(waiting.path("state").asText()).isEqualTo("WAITING");
            assertThat(waiting.path("reason").asText()).isEqualTo("waiting for 2 workers");
            assertThat(waiting.path("members").get(0).path("workerId").isNull()).as("no attempt yet").isTrue();
            assertThat(waiting.path("members").get(0).path("attempt").isNull()).isTrue();
            assertThat(failed.path("state").asText()).isEqualTo("FAILED");
            assertThat(failed.path("reason").isNull()).isTrue();
        });
    }

    @Test
    void anUnknownGangOrATaskOfItsOwnIs404() {
        state.task(MemoryState.task("solo-0", "ours", "WAITING", Map.of(), null));
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(get(client, "/v1/gangs/nope", null), 404, null)).contains("no gang nope");
            assertThat(refused(get(client, "/v1/gangs/solo", null), 404, null))
                    .as("solo-0 is a task, not a member").contains("no gang solo");
            assertThat(refused(get(client, "/v1/gangs/again?pool=theirs", null), 404, null))
                    .contains("no gang again in pool theirs");
            refused(get(client, "/v1/gangs/-x", null), 400, "id");
        });
    }
}
