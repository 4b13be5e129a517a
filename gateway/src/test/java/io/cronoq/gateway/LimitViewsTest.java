package io.cronoq.gateway;

import static io.cronoq.gateway.TestGateway.get;
import static io.cronoq.gateway.TestGateway.ok;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot.KeyUse;
import io.cronoq.scheduler.policy.LimitsSnapshot.RateUse;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.query.PoolState;
import io.cronoq.scheduler.query.PoolState.ClassState;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the views make of the scheduler's limits: a pool's keys capped with every key counted, which keys are at
 * their limit, its rate limits; the snapshot's pool with the tasks limits hold back, its limits and its waiting
 * classes (capped, the longest-waiting first, each with its limits in words); a task's keys and rate limits.
 */
class LimitViewsTest {

    private static final Instant NOW = TestGateway.NOW;

    @Test
    void aPoolsKeysAreCappedInTheSchedulersOrderAndCountedInFull() {
        LimitsSnapshot s = new LimitsSnapshot("p", List.of(
                new KeyUse("held", 2, 2, 2, 5),
                new KeyUse("lower-in-force", 5, 1, 1, 1),
                new KeyUse("room", 3, 1, 3, 0),
                new KeyUse("idle", 4, 0, null, 0)),
                List.of(new RateUse("openai", true, 2.5, 3, 1.23456, 2)));

        PoolLimitsView all = ViewMapper.limits(s, ListCaps.DEFAULT);
        PoolLimitsView two = ViewMapper.limits(s, new ListCaps(2, 1));

        assertThat(all.keys()).extracting(PoolLimitsView.KeyView::key)
                .containsExactly("held", "lower-in-force", "room", "idle");
        assertThat(all.keys()).extracting(PoolLimitsView.KeyView::atLimit)
                .as("a running task allowing only 1 stops the key at 1, whatever the admin's limit")
                .containsExactly(true, true, false, false);
        assertThat(List.of(all.keysTotal(), all.keysInUse(), all.keysAtLimit())).containsExactly(4, 3, 2);
        assertThat(all.heldBackByKeys()).isEqualTo(6);
        assertThat(all.heldBackByRates()).isEqualTo(2);
        assertThat(all.rates().get(0)).isEqualTo(new PoolLimitsView.RateView("openai", true, 2.5, 3, 1.234, 2));
        assertThat(two.keys()).extracting(PoolLimitsView.KeyView::key).containsExactly("held", "lower-in-force");
        assertThat(List.of(two.keysTotal(), two.keysInUse(), two.keysAtLimit())).as("counted over every key")
                .containsExactly(4, 3, 2);
        assertThat(two.heldBackByKeys()).isEqualTo(6);
    }

    @Test
    void theSnapshotsPoolShowsWhatLimitsHoldBackItsLimitsAndItsClasses() {
        GroupSnapshot group = new GroupSnapshot(Map.of(), 2, 2, 1, 5, 0);
        PoolState state = new PoolState(new PoolSnapshot("p", 2, 2, 5, List.of(group), 0),
                List.of(new PoolState.GroupState(group, "", 3, NOW.minusSeconds(90))),
                List.of(new ClassState("", "default", 1, "plain", NOW.minusSeconds(10), 1, null, false),
                        new ClassState("", "default", 3, "c1", NOW.minusSeconds(90), 1,
                                "concurrency customer-42 (max 2)", true),
                        new ClassState("", "research", 1, "r1", NOW.minusSeconds(30), 1, "rate openai x1", true)),
                3, 0, NOW.minusSeconds(90), null, 4,
                new LimitsSnapshot("p", List.of(new KeyUse("customer-42", null, 2, 2, 3)),
                        List.of(new RateUse("openai", true, 10, 10, 0, 1))));

        PoolView all = ViewMapper.pool(state, null, NOW, ListCaps.DEFAULT);
        PoolView oneClass = ViewMapper.pool(state, null, NOW, new ListCaps(1, 1));

        assertThat(all.heldByLimits()).isEqualTo(4);
        assertThat(all.limits().pool()).as("the pool names itself").isNull();
        assertThat(all.limits().keys()).extracting(PoolLimitsView.KeyView::key).containsExactly("customer-42");
        assertThat(all.limits().rates()).extracting(PoolLimitsView.RateView::name).containsExactly("openai");
        assertThat(all.classesTotal()).isEqualTo(3);
        assertThat(all.classes()).extracting(PoolView.ClassView::headTaskId).as("the longest-waiting first")
                .containsExactly("c1", "r1", "plain");
        assertThat(all.classes().get(0)).isEqualTo(new PoolView.ClassView("", "default", 3, "c1", 90_000L, 1,
                "concurrency customer-42 (max 2)", true));
        assertThat(all.classes().get(2).limits()).isNull();
        assertThat(all.classes().get(2).heldByLimit()).isFalse();
        assertThat(oneClass.classes()).extracting(PoolView.ClassView::headTaskId).containsExactly("c1");
        assertThat(oneClass.classesTotal()).isEqualTo(3);
    }

    @Test
    void theSnapshotRouteAsksForTheCapsAndShowsThePoolsLimitsAsJson() {
        GroupSnapshot group = new GroupSnapshot(Map.of(), 1, 1, 1, 2, 0);
        PoolState state = new PoolState(new PoolSnapshot("ours", 1, 1, 2, List.of(group), 0),
                List.of(new PoolState.GroupState(group, "", 1, NOW.minusSeconds(5))),
                List.of(new ClassState("", "default", 2, "t2", NOW.minusSeconds(5), 1, "concurrency a", true)),
                1, 0, NOW.minusSeconds(5), null, 2,
                new LimitsSnapshot("ours", List.of(new KeyUse("a", null, 1, 1, 2)), List.of()));
        MemoryState memory = new MemoryState(NOW.toString()).pool(ViewMapper.pool(state, null, NOW, ListCaps.DEFAULT));

        TestGateway.test(TestGateway.context(Credentials.none(), memory, new RecordingCommands()), (server, client) -> {
            JsonNode pool = ok(get(client, "/v1/snapshot?keys=7&classes=9", null)).path("pools").get(0);

            assertThat(memory.lastCaps).isEqualTo(new ListCaps(7, 9));
            assertThat(pool.path("heldByLimits").asLong()).isEqualTo(2);
            assertThat(pool.path("limits").has("pool")).as("the pool names itself").isFalse();
            assertThat(pool.path("limits").path("keys").get(0).path("key").asText()).isEqualTo("a");
            assertThat(pool.path("limits").path("keys").get(0).path("atLimit").asBoolean()).isTrue();
            assertThat(pool.path("limits").path("heldBackByKeys").asLong()).isEqualTo(2);
            assertThat(pool.path("classesTotal").asInt()).isEqualTo(1);
            JsonNode line = pool.path("classes").get(0);
            assertThat(line.path("limits").asText()).isEqualTo("concurrency a");
            assertThat(line.path("heldByLimit").asBoolean()).isTrue();
            assertThat(line.path("oldestWaitingMs").asLong()).isEqualTo(5_000);
            assertThat(ok(get(client, "/v1/snapshot?pool=ours", null)).path("pools")).hasSize(1);
            assertThat(memory.lastCaps).as("unless asked").isEqualTo(ListCaps.DEFAULT);
        });
    }

    @Test
    void aTasksViewShowsItsKeysAndRateLimits() {
        TaskSubmitted task = TaskSubmitted.newBuilder().setTaskId("t").setPool("p").setPayload(ByteBuffer.allocate(0))
                .setSubmittedAt(NOW.minusSeconds(3))
                .setConcurrency(List.of(new ConcurrencyKey("customer-42", 2), new ConcurrencyKey("export", null)))
                .setRateLimits(List.of(new RateLimitUse("openai", 3)))
                .build();
        TaskRecord record = TaskRecord.newBuilder().setTask(task).setState(TaskState.WAITING).setSequence(1)
                .setAttempts(new ArrayList<>()).setWaitingReason("concurrency key customer-42: 2/2 running")
                .setWaitingSince(NOW.minusSeconds(3)).setUpdatedAt(NOW.minusSeconds(3)).build();

        TaskView view = ViewMapper.task(record, NOW);

        assertThat(view.concurrency()).containsExactly(new TaskView.ConcurrencyView("customer-42", 2),
                new TaskView.ConcurrencyView("export", null));
        assertThat(view.rateLimits()).containsExactly(new TaskView.RateLimitView("openai", 3));
        assertThat(view.waiting().reason()).isEqualTo("concurrency key customer-42: 2/2 running");
        JsonNode json = Api.JSON.valueToTree(view);
        assertThat(json.path("concurrency").get(1).path("max").isNull()).isTrue();
        assertThat(json.path("rateLimits").get(0).path("units").asInt()).isEqualTo(3);
    }
}
