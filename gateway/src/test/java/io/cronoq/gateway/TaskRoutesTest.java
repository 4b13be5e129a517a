package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.rules.Rules;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/tasks} in Javalin's test server over a state in memory: what a submit, a cancel, a read and a list
 * answer, what they write, and how they refuse a bad parameter, an unknown task, a missing or weak token and a
 * body that is not JSON.
 */
class TaskRoutesTest {

    private static final String JSON = "application/json";

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .task(MemoryState.task("t-3", "ours", "WAITING", Map.of(), null))
            .task(MemoryState.task("t-2", "theirs", "RUNNING", Map.of("gpu", "a100"), "w-9"))
            .task(MemoryState.task("t-1", "ours", "SUCCEEDED", Map.of("gpu", "a100"), "w-1"));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, commands);

    @Test
    void aSubmitIs202WithTheIdAndPoolAndWritesTheParsedTask() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/tasks", null, JSON,
                    "{\"pool\":\"ours\",\"id\":\"new-1\",\"labels\":{\"gpu\":\"a100\"},\"payload\":\"hello\"}");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("id").asText()).isEqualTo("new-1");
            assertThat(answer.json().path("pool").asText()).isEqualTo("ours");
            assertThat(commands.submitted).hasSize(1);
            TaskSubmitted task = commands.submitted.get(0);
            assertThat(task.getTaskId()).isEqualTo("new-1");
            assertThat(task.getPool()).isEqualTo("ours");
            assertThat(task.getLabels()).isEqualTo(Map.of("gpu", "a100"));
            assertThat(StandardCharsets.UTF_8.decode(task.getPayload()).toString()).isEqualTo("hello");
            assertThat(task.getSubmittedAt()).as("the gateway's clock").isEqualTo(TestGateway.NOW);
            assertThat(task.getSubmitter()).as("an open gateway keeps the body's submitter: none").isNull();
        });
    }

    @Test
    void aSubmitWithoutAnIdGetsOneAndAnswersIt() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/tasks", null, JSON, "{\"pool\":\"ours\"}");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("id").asText()).isNotBlank()
                    .isEqualTo(commands.submitted.get(0).getTaskId());
        });
    }

    @Test
    void aSubmitWithoutAPoolOrWithABadFieldIs400NamingTheFieldAndWritesNothing() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer noPool = call(client, "POST", "/v1/tasks", null, JSON, "{\"payload\":\"x\"}");
            TestGateway.Answer badLabels = call(client, "POST", "/v1/tasks", null, JSON,
                    "{\"pool\":\"ours\",\"labels\":[\"gpu\"]}");

            assertThat(noPool.status()).as(noPool.toString()).isEqualTo(400);
            assertThat(noPool.error("code")).isEqualTo("INVALID_ARGUMENT");
            assertThat(noPool.error("field")).isEqualTo("pool");
            assertThat(badLabels.status()).as(badLabels.toString()).isEqualTo(400);
            assertThat(badLabels.error("field")).isEqualTo("labels");
            assertThat(commands.submitted).isEmpty();
        });
    }

    @Test
    void aSubmitThatIsNotDeclaredJsonIs415() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/tasks", null, "text/plain", "{\"pool\":\"ours\"}");

            assertThat(answer.status()).isEqualTo(415);
            assertThat(answer.error("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
            assertThat(commands.submitted).isEmpty();
        });
    }

    @Test
    void withTokensASubmitIsTheCallersInItsOwnPoolsOnly() {
        TestGateway.test(secured, (server, client) -> {
            String body = "{\"pool\":\"ours\",\"id\":\"mine\",\"submitter\":\"someone-else\"}";
            TestGateway.Answer none = call(client, "POST", "/v1/tasks", null, JSON, body);
            TestGateway.Answer viewer = call(client, "POST", "/v1/tasks", "viewer", JSON, body);
            TestGateway.Answer elsewhere = call(client, "POST", "/v1/tasks", "submitter", JSON,
                    "{\"pool\":\"theirs\"}");
            TestGateway.Answer own = call(client, "POST", "/v1/tasks", "submitter", JSON, body);

            assertThat(none.status()).isEqualTo(401);
            assertThat(none.error("code")).isEqualTo("UNAUTHENTICATED");
            assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer");
            assertThat(viewer.status()).isEqualTo(403);
            assertThat(viewer.error("code")).isEqualTo("PERMISSION_DENIED");
            assertThat(elsewhere.status()).isEqualTo(403);
            assertThat(elsewhere.error("message")).contains("'theirs'");
            assertThat(own.status()).as(own.toString()).isEqualTo(202);
            assertThat(commands.submitted).singleElement()
                    .satisfies(t -> assertThat(t.getSubmitter()).as("the caller, not the body").isEqualTo("submitter"));
        });
    }

    @Test
    void aTaskReadsAsItsViewAndAnUnknownOneIs404() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer found = get(client, "/v1/tasks/t-1", null);
            TestGateway.Answer inItsPool = get(client, "/v1/tasks/t-1?pool=ours", null);
            TestGateway.Answer inAnother = get(client, "/v1/tasks/t-1?pool=theirs", null);
            TestGateway.Answer unknown = get(client, "/v1/tasks/nope", null);

            assertThat(found.status()).as(found.toString()).isEqualTo(200);
            assertThat(found.json().path("id").asText()).isEqualTo("t-1");
            assertThat(found.json().path("pool").asText()).isEqualTo("ours");
            assertThat(found.json().path("state").asText()).isEqualTo("SUCCEEDED");
            assertThat(found.json().path("labels").path("gpu").asText()).isEqualTo("a100");
            assertThat(found.json().path("attempts").get(0).path("worker").asText()).isEqualTo("w-1");
            assertThat(inItsPool.status()).isEqualTo(200);
            assertThat(inAnother.status()).isEqualTo(404);
            assertThat(inAnother.error("code")).isEqualTo("NOT_FOUND");
            assertThat(inAnother.error("message")).contains("no task t-1 in pool theirs");
            assertThat(unknown.status()).isEqualTo(404);
        });
    }

    @Test
    void aTaskReadWithABadIdOrPoolIs400NamingIt() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer badId = get(client, "/v1/tasks/-starts-with-a-dash", null);
            TestGateway.Answer badPool = get(client, "/v1/tasks/t-1?pool=no%20spaces", null);

            assertThat(badId.status()).as(badId.toString()).isEqualTo(400);
            assertThat(badId.error("field")).isEqualTo("id");
            assertThat(badPool.status()).as(badPool.toString()).isEqualTo(400);
            assertThat(badPool.error("field")).isEqualTo("pool");
        });
    }

    @Test
    void withTokensATaskIsReadInTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(get(client, "/v1/tasks/t-1", null).status()).isEqualTo(401);
            assertThat(get(client, "/v1/tasks/t-1", "viewer").status()).isEqualTo(200);
            assertThat(get(client, "/v1/tasks/t-1?pool=ours", "submitter").status()).isEqualTo(200);
            assertThat(get(client, "/v1/tasks/t-1", "submitter").status()).as("a pool-restricted caller names the pool")
                    .isEqualTo(403);
            assertThat(get(client, "/v1/tasks/t-2?pool=theirs", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/tasks/t-1?pool=ours", "worker").status()).as("a worker reads no tasks")
                    .isEqualTo(403);
        });
    }

    @Test
    void theListIsAPageNewestFirstFilteredByPoolAndState() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer all = get(client, "/v1/tasks", null);
            TestGateway.Answer ours = get(client, "/v1/tasks?pool=ours", null);
            TestGateway.Answer waiting = get(client, "/v1/tasks?pool=ours&state=waiting", null);
            TestGateway.Answer first = get(client, "/v1/tasks?limit=1", null);

            assertThat(all.status()).as(all.toString()).isEqualTo(200);
            assertThat(all.json().path("tasks").findValuesAsText("id")).containsExactly("t-3", "t-2", "t-1");
            assertThat(all.json().path("next").asText(null)).as("the last page").isNull();
            assertThat(ours.json().path("tasks").findValuesAsText("id")).containsExactly("t-3", "t-1");
            assertThat(waiting.json().path("tasks").findValuesAsText("id")).containsExactly("t-3");
            assertThat(first.json().path("tasks").findValuesAsText("id")).containsExactly("t-3");
            assertThat(first.json().path("next").asText()).as("more follow").isNotEmpty();
        });
    }

    @Test
    void theListRefusesABadLimitStateOrCursorNamingIt() {
        TestGateway.test(open, (server, client) -> {
            for (String[] bad : new String[][] {{"limit=0", "limit"}, {"limit=501", "limit"}, {"limit=ten", "limit"},
                    {"state=DONE", "state"}, {"before=not-a-cursor", "before"}, {"pool=a/b", "pool"}}) {
                TestGateway.Answer answer = get(client, "/v1/tasks?" + bad[0], null);

                assertThat(answer.status()).as(bad[0] + ": " + answer).isEqualTo(400);
                assertThat(answer.error("field")).as(bad[0]).isEqualTo(bad[1]);
            }
        });
    }

    @Test
    void withTokensTheListIsOfTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            TestGateway.Answer ours = get(client, "/v1/tasks?pool=ours", "submitter");

            assertThat(get(client, "/v1/tasks", null).status()).isEqualTo(401);
            assertThat(get(client, "/v1/tasks", "viewer").status()).isEqualTo(200);
            assertThat(ours.status()).isEqualTo(200);
            assertThat(ours.json().path("tasks").findValuesAsText("pool")).containsOnly("ours");
            assertThat(get(client, "/v1/tasks", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/tasks?pool=theirs", "submitter").status()).isEqualTo(403);
        });
    }

    @Test
    void aCancelIs202AndWritesTheRequestInTheTasksPool() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "DELETE", "/v1/tasks/t-3?reason=not%20needed", null, null, null);

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("id").asText()).isEqualTo("t-3");
            assertThat(answer.json().path("pool").asText()).isEqualTo("ours");
            assertThat(commands.cancelled).hasSize(1);
            TaskCancelRequested cancel = commands.cancelled.get(0);
            assertThat(cancel.getTaskId()).isEqualTo("t-3");
            assertThat(cancel.getPool()).as("found from the task").isEqualTo("ours");
            assertThat(cancel.getReason()).isEqualTo("not needed");
            assertThat(cancel.getRequestedAt()).isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void aCancelOfAFinishedOrUnknownTaskOrWithTooLongAReasonIsRefused() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer finished = call(client, "DELETE", "/v1/tasks/t-1", null, null, null);
            TestGateway.Answer unknown = call(client, "DELETE", "/v1/tasks/nope", null, null, null);
            TestGateway.Answer longReason = call(client, "DELETE",
                    "/v1/tasks/t-3?reason=" + "r".repeat(Rules.MAX_REASON_LENGTH + 1), null, null, null);
            TestGateway.Answer textBody = call(client, "DELETE", "/v1/tasks/t-3", null, "text/plain", "please");

            assertThat(finished.status()).as(finished.toString()).isEqualTo(400);
            assertThat(finished.error("field")).isEqualTo("id");
            assertThat(finished.error("message")).contains("already SUCCEEDED");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(longReason.status()).as(longReason.toString()).isEqualTo(400);
            assertThat(longReason.error("field")).isEqualTo("reason");
            assertThat(textBody.status()).isEqualTo(415);
            assertThat(commands.cancelled).isEmpty();
        });
    }

    @Test
    void withTokensACancelIsASubmittersInItsPoolsOrAnAdmins() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(call(client, "DELETE", "/v1/tasks/t-3?pool=ours", null, null, null).status()).isEqualTo(401);
            assertThat(call(client, "DELETE", "/v1/tasks/t-3?pool=ours", "viewer", null, null).status())
                    .isEqualTo(403);
            assertThat(call(client, "DELETE", "/v1/tasks/t-2?pool=theirs", "submitter", null, null).status())
                    .isEqualTo(403);
            assertThat(commands.cancelled).isEmpty();
            assertThat(call(client, "DELETE", "/v1/tasks/t-3?pool=ours", "submitter", null, null).status())
                    .isEqualTo(202);
            assertThat(call(client, "DELETE", "/v1/tasks/t-2", "admin", null, null).status()).isEqualTo(202);
            assertThat(commands.cancelled).extracting(TaskCancelRequested::getTaskId).containsExactly("t-3", "t-2");
        });
    }
}
