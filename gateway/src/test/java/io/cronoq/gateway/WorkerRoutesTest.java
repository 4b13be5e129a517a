package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.call;
import static io.cronoq.gateway.TestGateway.get;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.WorkerDraining;
import io.cronoq.scheduler.auth.Credentials;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/workers} in Javalin's test server over a state in memory: the list, one worker and a drain, what they
 * answer and write, and how they refuse a bad parameter, an unknown or ambiguous worker, a worker that cannot
 * drain, a missing or weak token and a body that is not JSON.
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
            TestGateway.Answer all = get(client, "/v1/workers", null);
            TestGateway.Answer theirs = get(client, "/v1/workers?pool=theirs", null);
            TestGateway.Answer draining = get(client, "/v1/workers?state=draining", null);

            assertThat(all.status()).as(all.toString()).isEqualTo(200);
            assertThat(all.json().path("workers").findValuesAsText("id")).containsExactly("w-1", "w-2", "w-3", "w-1");
            assertThat(theirs.json().path("workers").findValuesAsText("pool")).containsExactly("theirs");
            assertThat(draining.json().path("workers").findValuesAsText("id")).containsExactly("w-2");
        });
    }

    @Test
    void theListRefusesABadStateOrPoolNamingIt() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer badState = get(client, "/v1/workers?state=SLEEPING", null);
            TestGateway.Answer badPool = get(client, "/v1/workers?pool=%2Fetc", null);

            assertThat(badState.status()).as(badState.toString()).isEqualTo(400);
            assertThat(badState.error("field")).isEqualTo("state");
            assertThat(badPool.status()).as(badPool.toString()).isEqualTo(400);
            assertThat(badPool.error("field")).isEqualTo("pool");
        });
    }

    @Test
    void aWorkerReadsAsItsViewAndAnUnknownOneIs404() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer found = get(client, "/v1/workers/w-2", null);
            TestGateway.Answer unknown = get(client, "/v1/workers/w-9", null);
            TestGateway.Answer notInPool = get(client, "/v1/workers/w-2?pool=theirs", null);

            assertThat(found.status()).as(found.toString()).isEqualTo(200);
            assertThat(found.json().path("id").asText()).isEqualTo("w-2");
            assertThat(found.json().path("pool").asText()).isEqualTo("ours");
            assertThat(found.json().path("state").asText()).isEqualTo("DRAINING");
            assertThat(found.json().path("slots").asInt()).isEqualTo(2);
            assertThat(found.json().path("generation").asLong()).isEqualTo(4);
            assertThat(found.json().path("running").get(0).path("taskId").asText()).isEqualTo("t-7");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.error("message")).contains("no worker w-9");
            assertThat(notInPool.status()).isEqualTo(404);
        });
    }

    @Test
    void anIdInTwoPoolsNeedsThePoolAndABadIdIs400() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer ambiguous = get(client, "/v1/workers/w-1", null);
            TestGateway.Answer named = get(client, "/v1/workers/w-1?pool=theirs", null);
            TestGateway.Answer badId = get(client, "/v1/workers/_w", null);

            assertThat(ambiguous.status()).as(ambiguous.toString()).isEqualTo(400);
            assertThat(ambiguous.error("field")).isEqualTo("pool");
            assertThat(named.status()).isEqualTo(200);
            assertThat(named.json().path("generation").asLong()).isEqualTo(8);
            assertThat(badId.status()).as(badId.toString()).isEqualTo(400);
            assertThat(badId.error("field")).isEqualTo("id");
        });
    }

    @Test
    void withTokensWorkersAreReadInTheCallersPools() {
        TestGateway.test(secured, (server, client) -> {
            assertThat(get(client, "/v1/workers", null).status()).isEqualTo(401);
            assertThat(get(client, "/v1/workers", "viewer").status()).isEqualTo(200);
            assertThat(get(client, "/v1/workers?pool=ours", "submitter").status()).isEqualTo(200);
            assertThat(get(client, "/v1/workers", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/workers/w-1?pool=theirs", "submitter").status()).isEqualTo(403);
            assertThat(get(client, "/v1/workers/w-2?pool=ours", "worker").status()).isEqualTo(403);
        });
    }

    @Test
    void aDrainIs202AndWritesTheWorkersCurrentGeneration() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer answer = call(client, "POST", "/v1/workers/w-1/drain?pool=ours", null, JSON, null);

            assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
            assertThat(answer.json().path("id").asText()).isEqualTo("w-1");
            assertThat(answer.json().path("pool").asText()).isEqualTo("ours");
            assertThat(answer.json().path("generation").asLong()).isEqualTo(3);
            assertThat(commands.drained).hasSize(1);
            WorkerDraining drain = commands.drained.get(0);
            assertThat(drain.getWorkerId()).isEqualTo("w-1");
            assertThat(drain.getPool()).isEqualTo("ours");
            assertThat(drain.getGeneration()).isEqualTo(3);
            assertThat(drain.getAt()).isEqualTo(TestGateway.NOW);
        });
    }

    @Test
    void aDrainOfAWorkerThatLeftOrIsUnknownOrNotDeclaredJsonIsRefused() {
        TestGateway.test(open, (server, client) -> {
            TestGateway.Answer left = call(client, "POST", "/v1/workers/w-3/drain", null, JSON, null);
            TestGateway.Answer unknown = call(client, "POST", "/v1/workers/w-9/drain", null, JSON, null);
            TestGateway.Answer ambiguous = call(client, "POST", "/v1/workers/w-1/drain", null, JSON, null);
            TestGateway.Answer text = call(client, "POST", "/v1/workers/w-2/drain", null, "text/plain", "");

            assertThat(left.status()).as(left.toString()).isEqualTo(400);
            assertThat(left.error("field")).isEqualTo("id");
            assertThat(left.error("message")).contains("is LEFT");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(ambiguous.status()).isEqualTo(400);
            assertThat(ambiguous.error("field")).isEqualTo("pool");
            assertThat(text.status()).isEqualTo(415);
            assertThat(commands.drained).isEmpty();
        });
    }

    @Test
    void withTokensOnlyAnAdminDrains() {
        TestGateway.test(secured, (server, client) -> {
            String path = "/v1/workers/w-2/drain?pool=ours";

            assertThat(call(client, "POST", path, null, JSON, null).status()).isEqualTo(401);
            assertThat(call(client, "POST", path, "viewer", JSON, null).status()).isEqualTo(403);
            assertThat(call(client, "POST", path, "submitter", JSON, null).status()).isEqualTo(403);
            assertThat(call(client, "POST", path, "worker", JSON, null).status()).isEqualTo(403);
            assertThat(commands.drained).isEmpty();
            assertThat(call(client, "POST", path, "admin", JSON, null).status()).isEqualTo(202);
            assertThat(commands.drained).extracting(WorkerDraining::getWorkerId).containsExactly("w-2");
        });
    }
}
