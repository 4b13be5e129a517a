package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.accepted;
import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.callStatuses;
import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.rules.Rules;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/tasks} in Javalin's test server over a state in memory: what a submit, a cancel, a read and a list
 * answer, what they write, and how they refuse a bad body, an unknown or finished task, a missing or weak token and
 * a body that is not JSON (the reads' bad parameters and tokens: {@link ReadRoutesTest}).
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
            accepted(call(client, "POST", "/v1/tasks", null, JSON,
                    "{\"pool\":\"ours\",\"id\":\"new-1\",\"labels\":{\"gpu\":\"a100\"},\"payload\":\"hello\"}"),
                    "new-1", "ours");

            TaskSubmitted task = commands.only(TaskSubmitted.class);
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
            String id = commands.only(TaskSubmitted.class).getTaskId();

            assertThat(id).isNotBlank();
            accepted(answer, id, "ours");
        });
    }

    @Test
    void aSubmitWithoutAPoolOrWithABadFieldOrNotDeclaredJsonIsRefusedAndWritesNothing() {
        TestGateway.test(open, (server, client) -> {
            refused(call(client, "POST", "/v1/tasks", null, JSON, "{\"payload\":\"x\"}"), 400, "pool");
            refused(call(client, "POST", "/v1/tasks", null, JSON, "{\"pool\":\"ours\",\"labels\":[\"gpu\"]}"), 400,
                    "labels");
            refused(call(client, "POST", "/v1/tasks", null, "text/plain", "{\"pool\":\"ours\"}"), 415, "Content-Type");
            assertThat(commands.written(TaskSubmitted.class)).isEmpty();
        });
    }

    @Test
    void withTokensASubmitIsTheCallersInItsOwnPoolsOnly() {
        TestGateway.test(secured, (server, client) -> {
            String body = "{\"pool\":\"ours\",\"id\":\"mine\"}";
            TestGateway.Answer none = call(client, "POST", "/v1/tasks", null, JSON, body);

            refused(none, 401, null);
            assertThat(none.header("WWW-Authenticate")).isEqualTo("Bearer");
            refused(call(client, "POST", "/v1/tasks", "viewer", JSON, body), 403, null);
            assertThat(refused(call(client, "POST", "/v1/tasks", "submitter", JSON, "{\"pool\":\"theirs\"}"), 403,
                    null)).contains("'theirs'");
            assertThat(commands.written(TaskSubmitted.class)).isEmpty();
            assertThat(refused(call(client, "POST", "/v1/tasks", "submitter", JSON,
                    "{\"pool\":\"ours\",\"id\":\"claimed\",\"submitter\":\"someone-else\"}"), 400, "submitter"))
                    .as("the server sets it; a body claiming one is refused, not overwritten")
                    .contains("from the calling credential ('submitter')");
            assertThat(commands.written(TaskSubmitted.class)).isEmpty();
            assertThat(call(client, "POST", "/v1/tasks", "submitter", JSON, body).status()).isEqualTo(202);
            assertThat(commands.written(TaskSubmitted.class)).singleElement()
                    .satisfies(t -> assertThat(t.getSubmitter()).as("the caller").isEqualTo("submitter"));
        });
    }

    @Test
    void anOpenGatewaySubmitsForTheTenantTheTaskNamesElseNone() {
        TestGateway.test(open, (server, client) -> {
            accepted(call(client, "POST", "/v1/tasks", null, JSON, "{\"pool\":\"ours\",\"id\":\"r\",\"tenant\":\"research\"}"),
                    "r", "ours");
            accepted(call(client, "POST", "/v1/tasks", null, JSON, "{\"pool\":\"ours\",\"id\":\"d\"}"), "d", "ours");
            assertThat(refused(call(client, "POST", "/v1/tasks", null, JSON,
                    "{\"pool\":\"ours\",\"tenant\":\"two words\"}"), 400, "tenant")).contains("a tenant name is");

            assertThat(commands.written(TaskSubmitted.class)).extracting(TaskSubmitted::getTenant)
                    .as("none is the tenant default").containsExactly("research", null);
        });
    }

    @Test
    void aTokenBoundToATenantSubmitsForItAloneAndOneThatIsNotForTheTaskNamesTenant() {
        TestGateway.test(secured, (server, client) -> {
            accepted(call(client, "POST", "/v1/tasks", "ci", JSON, "{\"pool\":\"ours\",\"id\":\"c1\"}"), "c1", "ours");
            accepted(call(client, "POST", "/v1/tasks", "ci", JSON,
                    "{\"pool\":\"theirs\",\"id\":\"c2\",\"tenant\":\"research\"}"), "c2", "theirs");
            TestGateway.Answer other = call(client, "POST", "/v1/tasks", "ci", JSON,
                    "{\"pool\":\"ours\",\"id\":\"c3\",\"tenant\":\"default\"}");
            accepted(call(client, "POST", "/v1/tasks", "submitter", JSON,
                    "{\"pool\":\"ours\",\"id\":\"s1\",\"tenant\":\"batch\"}"), "s1", "ours");
            accepted(call(client, "POST", "/v1/tasks", "admin", JSON, "{\"pool\":\"ours\",\"id\":\"a1\"}"), "a1", "ours");

            assertThat(refused(other, 403, "tenant"))
                    .isEqualTo("token 'ci' submits for tenant research only; leave tenant out or name research");
            assertThat(commands.written(TaskSubmitted.class))
                    .extracting(TaskSubmitted::getTaskId, TaskSubmitted::getTenant, TaskSubmitted::getSubmitter)
                    .containsExactly(tuple("c1", "research", "ci"), tuple("c2", "research", "ci"),
                            tuple("s1", "batch", "submitter"), tuple("a1", null, "admin"));
        });
    }

    @Test
    void aTaskReadsAsItsViewAndAnUnknownOneIs404() {
        TestGateway.test(open, (server, client) -> {
            JsonNode found = ok(get(client, "/v1/tasks/t-1", null));

            assertThat(found.path("id").asText()).isEqualTo("t-1");
            assertThat(found.path("pool").asText()).isEqualTo("ours");
            assertThat(found.path("state").asText()).isEqualTo("SUCCEEDED");
            assertThat(found.path("tenant").asText()).isEqualTo("default");
            assertThat(found.path("labels").path("gpu").asText()).isEqualTo("a100");
            assertThat(found.path("attempts").get(0).path("worker").asText()).isEqualTo("w-1");
            assertThat(ok(get(client, "/v1/tasks/t-1?pool=ours", null))).isEqualTo(found);
            assertThat(refused(get(client, "/v1/tasks/t-1?pool=theirs", null), 404, null))
                    .contains("no task t-1 in pool theirs");
            refused(get(client, "/v1/tasks/nope", null), 404, null);
        });
    }

    @Test
    void theListIsAPageNewestFirstFilteredByPoolAndState() {
        TestGateway.test(open, (server, client) -> {
            JsonNode all = ok(get(client, "/v1/tasks", null));
            JsonNode first = ok(get(client, "/v1/tasks?limit=1", null));

            assertThat(all.path("tasks").findValuesAsText("id")).containsExactly("t-3", "t-2", "t-1");
            assertThat(all.path("next").asText(null)).as("the last page").isNull();
            assertThat(ok(get(client, "/v1/tasks?pool=ours", null)).path("tasks").findValuesAsText("id"))
                    .containsExactly("t-3", "t-1");
            assertThat(ok(get(client, "/v1/tasks?pool=ours&state=waiting", null)).path("tasks").findValuesAsText("id"))
                    .containsExactly("t-3");
            assertThat(first.path("tasks").findValuesAsText("id")).containsExactly("t-3");
            assertThat(first.path("next").asText()).as("more follow").isNotEmpty();
        });
    }

    @Test
    void aCancelIs202AndWritesTheRequestInTheTasksPool() {
        TestGateway.test(open, (server, client) -> {
            accepted(call(client, "DELETE", "/v1/tasks/t-3?reason=not%20needed", null, null, null), "t-3", "ours");

            TaskCancelRequested cancel = commands.only(TaskCancelRequested.class);
            assertThat(cancel.getTaskId()).isEqualTo("t-3");
            assertThat(cancel.getPool()).as("found from the task").isEqualTo("ours");
            assertThat(cancel.getReason()).isEqualTo("not needed");
            assertThat(cancel.getRequestedAt()).isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void aCancelOfAFinishedOrUnknownTaskOrWithTooLongAReasonIsRefused() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(call(client, "DELETE", "/v1/tasks/t-1", null, null, null), 400, "id"))
                    .contains("already SUCCEEDED");
            refused(call(client, "DELETE", "/v1/tasks/nope", null, null, null), 404, null);
            refused(call(client, "DELETE", "/v1/tasks/t-3?reason=" + "r".repeat(Rules.MAX_REASON_LENGTH + 1), null,
                    null, null), 400, "reason");
            refused(call(client, "DELETE", "/v1/tasks/t-3", null, "text/plain", "please"), 415, "Content-Type");
            assertThat(commands.written(TaskCancelRequested.class)).isEmpty();
        });
    }

    @Test
    void withTokensACancelIsASubmittersInItsPoolsOrAnAdmins() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(callStatuses(client, "DELETE", "/v1/tasks/t-3?pool=ours", null, null, "none", "viewer",
                    "worker")).containsExactly("none=401", "viewer=403", "worker=403");
            assertThat(callStatuses(client, "DELETE", "/v1/tasks/t-2?pool=theirs", null, null, "submitter"))
                    .containsExactly("submitter=403");
            assertThat(commands.written(TaskCancelRequested.class)).isEmpty();
            assertThat(callStatuses(client, "DELETE", "/v1/tasks/t-3?pool=ours", null, null, "submitter"))
                    .containsExactly("submitter=202");
            assertThat(callStatuses(client, "DELETE", "/v1/tasks/t-2", null, null, "admin"))
                    .containsExactly("admin=202");
            assertThat(commands.written(TaskCancelRequested.class)).extracting(TaskCancelRequested::getTaskId)
                    .containsExactly("t-3", "t-2");
        });
    }
}
