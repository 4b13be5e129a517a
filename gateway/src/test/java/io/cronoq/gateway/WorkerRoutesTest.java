package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.accepted;
import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.callStatuses;
import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static io.cronoq.gateway.TestGateway.refused;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.WorkerDraining;
import io.cronoq.scheduler.auth.Credentials;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/workers} in Javalin's test server over a state in memory: the list, one worker and a drain, what they
 * answer and write, and how they refuse an unknown or ambiguous worker, a worker that cannot drain, a missing or
 * weak token and a body that is not JSON (the reads' bad parameters and tokens: {@link ReadRoutesTest}).
 */
class WorkerRoutesTest {

    private static final String JSON = "application/json";

    private final MemoryState state = new MemoryState(TestGateway.NOW.toString())
            .worker(MemoryState.worker("w-2", "ours", "DRAINING", 2, 4, "t-7"))
            .worker(MemoryState.worker("w-1", "ours", "ACTIVE", 4, 3, "t-5", "t-6"))
            .worker(MemoryState.worker("w-1", "theirs", "ACTIVE", 1, 8))
            .worker(MemoryState.worker("w-3", "ours", "LEFT", 1, 2));
    private final RecordingCommands commands = new RecordingCommands();
    private final GatewayContext open = TestGateway.context(Credentials.none(), state, commands);
    private final GatewayContext secured = TestGateway.context(TestGateway.SECURED, state, commands);

    @Test
    void theListHasEveryWorkerByPoolThenIdFilteredByPoolAndState() {
        TestGateway.test(open, (server, client) -> {
            assertThat(ok(get(client, "/v1/workers", null)).path("workers").findValuesAsText("id"))
                    .containsExactly("w-1", "w-2", "w-3", "w-1");
            assertThat(ok(get(client, "/v1/workers?pool=theirs", null)).path("workers").findValuesAsText("pool"))
                    .containsExactly("theirs");
            assertThat(ok(get(client, "/v1/workers?state=draining", null)).path("workers").findValuesAsText("id"))
                    .containsExactly("w-2");
        });
    }

    @Test
    void aWorkerReadsAsItsViewAndAnUnknownOneIs404() {
        TestGateway.test(open, (server, client) -> {
            JsonNode found = ok(get(client, "/v1/workers/w-2", null));

            assertThat(found.path("id").asText()).isEqualTo("w-2");
            assertThat(found.path("pool").asText()).isEqualTo("ours");
            assertThat(found.path("state").asText()).isEqualTo("DRAINING");
            assertThat(found.path("slots").asInt()).isEqualTo(2);
            assertThat(found.path("generation").asLong()).isEqualTo(4);
            assertThat(found.path("running").get(0).path("taskId").asText()).isEqualTo("t-7");
            assertThat(refused(get(client, "/v1/workers/w-9", null), 404, null)).contains("no worker w-9");
            refused(get(client, "/v1/workers/w-2?pool=theirs", null), 404, null);
        });
    }

    @Test
    void anIdInTwoPoolsNeedsThePool() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(get(client, "/v1/workers/w-1", null), 400, "pool")).contains("[ours, theirs]");
            assertThat(ok(get(client, "/v1/workers/w-1?pool=theirs", null)).path("generation").asLong()).isEqualTo(8);
        });
    }

    @Test
    void aDrainIs202AndWritesTheWorkersCurrentGeneration() {
        TestGateway.test(open, (server, client) -> {
            JsonNode answer = accepted(call(client, "POST", "/v1/workers/w-1/drain?pool=ours", null, JSON, null), "w-1",
                    "ours");

            assertThat(answer.path("generation").asLong()).isEqualTo(3);
            WorkerDraining drain = commands.only(WorkerDraining.class);
            assertThat(drain.getWorkerId()).isEqualTo("w-1");
            assertThat(drain.getPool()).isEqualTo("ours");
            assertThat(drain.getGeneration()).isEqualTo(3);
            assertThat(drain.getAt()).isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void aDrainOfAWorkerThatLeftOrIsUnknownOrNotDeclaredJsonIsRefused() {
        TestGateway.test(open, (server, client) -> {
            assertThat(refused(call(client, "POST", "/v1/workers/w-3/drain", null, JSON, null), 400, "id"))
                    .contains("is LEFT");
            refused(call(client, "POST", "/v1/workers/w-9/drain", null, JSON, null), 404, null);
            refused(call(client, "POST", "/v1/workers/w-1/drain", null, JSON, null), 400, "pool");
            refused(call(client, "POST", "/v1/workers/w-2/drain", null, "text/plain", ""), 415, "Content-Type");
            assertThat(commands.written(WorkerDraining.class)).isEmpty();
        });
    }

    @Test
    void withTokensOnlyAnAdminDrains() {
        TestGateway.test(secured, (server, client) -> {
            String path = "/v1/workers/w-2/drain?pool=ours";

            assertThat(callStatuses(client, "POST", path, JSON, null, "none", "viewer", "submitter", "worker"))
                    .containsExactly("none=401", "viewer=403", "submitter=403", "worker=403");
            assertThat(commands.written(WorkerDraining.class)).isEmpty();
            assertThat(callStatuses(client, "POST", path, JSON, null, "admin")).containsExactly("admin=202");
            assertThat(commands.written(WorkerDraining.class)).extracting(WorkerDraining::getWorkerId)
                    .containsExactly("w-2");
        });
    }
}
