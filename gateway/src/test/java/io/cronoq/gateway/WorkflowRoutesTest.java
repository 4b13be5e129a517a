package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/workflows} and the parents of a single task in Javalin's test server over a state in memory: what a
 * submit writes (every task, parents first, with the workflow's ids), each refusal with its field and nothing
 * written, a workflow read back and cancelled.
 */
class WorkflowRoutesTest {

    private static final String JSON = "application/json";

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .task(MemoryState.task("earlier", "other", "SUCCEEDED", Map.of(), null))
            .task(MemoryState.inWorkflow("etl", "extract", "ours", "SUCCEEDED"))
            .task(MemoryState.inWorkflow("etl", "load", "ours", "RUNNING", "transform"))
            .task(MemoryState.inWorkflow("etl", "transform", "ours", "SUCCEEDED", "extract"))
            .task(MemoryState.inWorkflow("etl", "report", "ours", "BLOCKED", "load"))
            .task(MemoryState.inWorkflow("done", "work", "ours", "SUCCEEDED"))
            .task(MemoryState.inWorkflow("done", "alert", "ours", "CANCELLED", "work?failed"))
            .task(MemoryState.inWorkflow("done", "page", "ours", "CANCELLED", "alert"))
            .task(MemoryState.inWorkflow("stopped", "work", "ours", "CANCELLED"));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);

    @Test
    void aWorkflowIsWrittenParentsFirstWithItsIdsAndItsParentsInsideIt() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/workflows", null, JSON, """
                    {"pool":"ours","id":"ml-7","tasks":[
                      {"id":"evaluate","after":["train"],"payload":"eval"},
                      {"id":"train","after":["prepare", {"task":"earlier","when":"finished"}]},
                      {"id":"prepare"},
                      {"id":"alert","after":[{"task":"train","when":"failed"}],"onParentUnmet":"run"}]}""");

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("tasks")).extracting(JsonNode::asText)
                    .containsExactly("ml-7:prepare", "ml-7:train", "ml-7:evaluate", "ml-7:alert");
            List<TaskSubmitted> written = commands.written(TaskSubmitted.class);
            assertThat(written).extracting(TaskSubmitted::getTaskId)
                    .containsExactly("ml-7:prepare", "ml-7:train", "ml-7:evaluate", "ml-7:alert");
            assertThat(written).allSatisfy(t -> {
                assertThat(t.getPool()).isEqualTo("ours");
                assertThat(t.getWorkflow()).isEqualTo("ml-7");
            });
            assertThat(written.get(1).getAfter()).containsExactly(
                    new Dependency("ml-7:prepare", null, ParentCondition.SUCCEEDED),
                    new Dependency("earlier", "other", ParentCondition.FINISHED));
            assertThat(written.get(3).getAfter()).containsExactly(new Dependency("ml-7:train", null, ParentCondition.FAILED));
            assertThat(written.get(3).getRunIfParentUnmet()).isTrue();
        });
    }

    @Test
    void aCycleIsRefusedNamingItAndNothingIsWritten() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/workflows", null, JSON, """
                    {"pool":"ours","id":"loop","tasks":[
                      {"id":"a","after":["c"]}, {"id":"b","after":["a"]}, {"id":"c","after":["b"]}, {"id":"d"}]}""");

            assertThat(answer.status()).isEqualTo(400);
            assertThat(answer.json().path("error").path("field").asText()).isEqualTo("tasks");
            assertThat(answer.json().path("error").path("message").asText())
                    .contains("a → c → b → a form a cycle");
            assertThat(commands.written(TaskSubmitted.class)).isEmpty();
        });
    }

    @Test
    void duplicateNamesUnknownParentsAndSelfParentsAreRefusedByField() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer duplicate = call(client, "POST", "/v1/workflows", null, JSON, """
                    {"pool":"ours","id":"w","tasks":[{"id":"a"},{"id":"a"}]}""");
            assertThat(duplicate.status()).isEqualTo(400);
            assertThat(duplicate.json().path("error").path("field").asText()).isEqualTo("tasks[1].id");
            assertThat(duplicate.json().path("error").path("message").asText()).contains("two tasks are named a");

            TestGateway.Answer unknown = call(client, "POST", "/v1/workflows", null, JSON, """
                    {"pool":"ours","id":"w","tasks":[{"id":"a","after":["nowhere"]}]}""");
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.json().path("error").path("field").asText()).isEqualTo("tasks[a].after[0].task");
            assertThat(unknown.json().path("error").path("message").asText()).contains("no task nowhere");

            TestGateway.Answer self = call(client, "POST", "/v1/workflows", null, JSON, """
                    {"pool":"ours","id":"w","tasks":[{"id":"a","after":["a"]}]}""");
            assertThat(self.status()).isEqualTo(400);
            assertThat(self.json().path("error").path("message").asText()).contains("names itself");

            TestGateway.Answer badWhen = call(client, "POST", "/v1/tasks", null, JSON, """
                    {"pool":"ours","after":[{"task":"earlier","when":"sometimes"}]}""");
            assertThat(badWhen.status()).isEqualTo(400);
            assertThat(badWhen.json().path("error").path("field").asText()).isEqualTo("after[0].when");
            assertThat(commands.written(TaskSubmitted.class)).isEmpty();
        });
    }

    @Test
    void aSingleTaskNamesAParentByIdAndTheGatewayWritesDownItsPool() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/tasks", null, JSON, """
                    {"pool":"ours","id":"child","after":["earlier"]}""");
            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(commands.only(TaskSubmitted.class).getAfter())
                    .containsExactly(new Dependency("earlier", "other", ParentCondition.SUCCEEDED));

            TestGateway.Answer unknown = call(client, "POST", "/v1/tasks", null, JSON, """
                    {"pool":"ours","id":"orphan","after":["nobody"]}""");
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.json().path("error").path("field").asText()).isEqualTo("after[0].task");
        });
    }

    @Test
    void aWorkflowReadsBackParentsFirstWithItsStateAndCancelsWhatHasNotEnded() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer read = call(client, "GET", "/v1/workflows/etl?pool=ours", null, null, null);
            assertThat(read.status()).as(read.toString()).isEqualTo(200);
            assertThat(read.json().path("state").asText()).isEqualTo("RUNNING");
            assertThat(read.json().path("tasks")).extracting(t -> t.path("id").asText())
                    .containsExactly("etl:extract", "etl:transform", "etl:load", "etl:report");
            assertThat(read.json().path("counts").path("SUCCEEDED").asInt()).isEqualTo(2);

            TestGateway.Answer cancel = call(client, "DELETE", "/v1/workflows/etl?pool=ours", null, null, null);
            assertThat(cancel.status()).as(cancel.toString()).isEqualTo(202);
            assertThat(commands.written(TaskCancelRequested.class)).extracting(TaskCancelRequested::getTaskId)
                    .containsExactlyInAnyOrder("etl:load", "etl:report");

            assertThat(call(client, "GET", "/v1/workflows/done?pool=ours", null, null, null).json().path("state").asText())
                    .as("an on-failure branch not taken does not make the workflow cancelled").isEqualTo("SUCCEEDED");
            assertThat(call(client, "GET", "/v1/workflows/stopped?pool=ours", null, null, null).json().path("state")
                    .asText()).isEqualTo("CANCELLED");
            assertThat(call(client, "GET", "/v1/workflows/none?pool=ours", null, null, null).status()).isEqualTo(404);
            assertThat(call(client, "GET", "/v1/workflows/etl", null, null, null).status()).isEqualTo(400);
        });
    }
}
