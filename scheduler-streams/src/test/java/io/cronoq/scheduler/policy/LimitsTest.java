package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.cancel;
import static io.cronoq.scheduler.policy.In.failed;
import static io.cronoq.scheduler.policy.In.keyLimit;
import static io.cronoq.scheduler.policy.In.keyed;
import static io.cronoq.scheduler.policy.In.rateLimit;
import static io.cronoq.scheduler.policy.In.rated;
import static io.cronoq.scheduler.policy.In.retries;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.task;
import static io.cronoq.scheduler.policy.In.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.InputRejected;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerLeft;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/**
 * Concurrency keys and rate limits, one rule at a time: a key at its limit holds back only the tasks
 * holding it; a freed key and slot go to the next holder; the smallest limit applies; an admin's
 * limit is the default and the ceiling; a bucket spaces assignments and refills on the ticks; an
 * undefined limit or a task above the burst waits with its reason; every end of an attempt gives
 * its key back once; a restart continues; malformed limits are refused naming the field.
 */
class LimitsTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private PoolScheduler scheduler = new PoolScheduler(POOL, store);
    private final List<AttemptAssigned> running = new ArrayList<>();

    private List<Decision> apply(SpecificRecord in) {
        return track(scheduler.apply(in, T0));
    }

    private List<Decision> tick(Instant at) {
        return track(scheduler.tick(at));
    }

    private List<Decision> track(List<Decision> out) {
        running.addAll(Out.all(out, AttemptAssigned.class));
        return out;
    }

    private List<String> runningIds() {
        return running.stream().map(AttemptAssigned::getTaskId).sorted().collect(Collectors.toList());
    }

    private AttemptAssigned attemptOf(String taskId) {
        return running.stream().filter(a -> a.getTaskId().equals(taskId)).reduce((a, b) -> b).orElseThrow();
    }

    private List<Decision> finish(String taskId) {
        AttemptAssigned a = attemptOf(taskId);
        running.remove(a);
        apply(started(a));
        return apply(succeeded(a));
    }

    private String reasonOf(String taskId) {
        return store.task(taskId).getWaitingReason();
    }

    private static TaskSubmitted at(TaskSubmitted task, long millis) {
        task.setSubmittedAt(T0.plusMillis(millis));
        return task;
    }

    private LimitsSnapshot.KeyUse keyUse(String key) {
        return scheduler.limits(T0).keys().stream().filter(k -> k.key().equals(key)).findFirst().orElseThrow();
    }

    @Test
    void aKeyAtItsLimitHoldsBackOnlyItsTasksAndHandsItsSlotToTheNextHolder() {
        apply(worker("w1", 4));
        apply(keyed(task("a1"), "customer-42", 2));
        apply(keyed(task("a2"), "customer-42", 2));
        apply(keyed(task("b1"), "customer-7", 1));
        apply(task("u1"));
        List<Decision> a3 = apply(at(keyed(task("a3"), "customer-42", 2), 1));

        assertThat(runningIds()).containsExactly("a1", "a2", "b1", "u1");
        assertThat(Out.only(a3, TaskWaiting.class).getReason()).isEqualTo("concurrency key customer-42: 2/2 running");

        // A task without a key, submitted after a3, waits for a slot only; one of customer-7 waits behind b1's key.
        apply(at(task("u2"), 2));
        apply(at(keyed(task("b2"), "customer-7", 1), 3));
        assertThat(reasonOf("u2")).isEqualTo("1 worker matches; all 4 slots busy; 1st in line");
        assertThat(reasonOf("b2")).isEqualTo("concurrency key customer-7: 1/1 running");
        assertThat(keyUse("customer-42")).isEqualTo(new LimitsSnapshot.KeyUse("customer-42", null, 2, 2, 1));
        assertThat(scheduler.snapshot().waiting()).isEqualTo(3);
        assertThat(scheduler.snapshot().groups()).singleElement()
                .satisfies(g -> assertThat(g.waiting()).as("a3 and b2 are held back by their keys").isEqualTo(1));
        assertThat(scheduler.classes()).filteredOn(ClassSnapshot::heldByLimit).extracting(ClassSnapshot::limits)
                .containsExactlyInAnyOrder("concurrency customer-42 (max 2)", "concurrency customer-7 (max 1)");

        // u1 ends: its slot goes to u2 (a3 and b2 are held back by their keys, and hold nobody up).
        finish("u1");
        assertThat(runningIds()).containsExactly("a1", "a2", "b1", "u2");

        // a1 ends: its slot and its key go together to a3, the next task holding the key.
        List<Decision> out = finish("a1");
        AttemptAssigned handed = Out.assigned(out);
        assertThat(handed.getTaskId()).isEqualTo("a3");
        assertThat(out.stream().filter(d -> d.event() == handed).findFirst().orElseThrow().cause())
                .contains("task a1 freed this slot and concurrency key customer-42");
        assertThat(keyUse("customer-42").running()).isEqualTo(2);
    }

    @Test
    void aFreedKeyGoesToItsHolderBeforeAnEarlierTaskWithoutIt() {
        apply(worker("w1", 2));
        apply(keyed(task("k1"), "nightly", null));
        apply(task("u1"));
        apply(at(task("u2"), 1));
        apply(at(keyed(task("k2"), "nightly", null), 2));
        assertThat(reasonOf("k2")).isEqualTo("concurrency key nightly: 1/1 running");

        finish("k1");

        assertThat(runningIds()).containsExactly("k2", "u1");
        assertThat(store.task("u2").getState()).isEqualTo(TaskState.WAITING);
        assertThat(reasonOf("u2")).isEqualTo("1 worker matches; all 2 slots busy; 1st in line");
    }

    @Test
    void theSmallestLimitOfAKeyApplies() {
        apply(worker("w1", 8));
        apply(keyed(task("wide-1"), "db", 3));
        apply(keyed(task("narrow-1"), "db", 1));
        assertThat(reasonOf("narrow-1")).isEqualTo("concurrency key db: 1/1 running");

        apply(keyed(task("strict-1"), "api", 1));
        apply(keyed(task("loose-1"), "api", 3));
        assertThat(reasonOf("loose-1"))
                .isEqualTo("concurrency key api: 1/1 running (a running task holding it allows 1)");
        assertThat(runningIds()).containsExactly("strict-1", "wide-1");

        // Without the strict holder, the loose tasks may run 3 at once.
        apply(keyed(task("loose-2"), "api", 3));
        apply(keyed(task("loose-3"), "api", 3));
        finish("strict-1");
        assertThat(runningIds()).containsExactly("loose-1", "loose-2", "loose-3", "wide-1");
    }

    @Test
    void anAdminsLimitIsTheKeysDefaultAndCeiling() {
        apply(worker("w1", 8));
        apply(keyLimit("report", 2, T0));
        apply(keyed(task("r1"), "report", null));
        apply(keyed(task("r2"), "report", null));
        apply(keyed(task("r3"), "report", null));
        apply(keyed(task("r4"), "report", 5));
        assertThat(runningIds()).containsExactly("r1", "r2");
        assertThat(reasonOf("r3")).isEqualTo("concurrency key report: 2/2 running");
        assertThat(reasonOf("r4")).isEqualTo("concurrency key report: 2/2 running");

        List<Decision> raised = apply(keyLimit("report", 3, T0));
        assertThat(Out.assigned(raised).getTaskId()).isEqualTo("r3");
        assertThat(reasonOf("r4")).isEqualTo("concurrency key report: 3/3 running");
        assertThat(keyUse("report")).isEqualTo(new LimitsSnapshot.KeyUse("report", 3, 3, 3, 1));

        // Lowered below what runs: nothing is revoked, nothing new starts.
        List<Decision> lowered = apply(keyLimit("report", 1, T0));
        assertThat(Out.all(lowered, AttemptAssigned.class)).isEmpty();
        finish("r1");
        finish("r2");
        assertThat(runningIds()).containsExactly("r3");
        finish("r3");
        assertThat(runningIds()).containsExactly("r4");
        assertThat(store.limits().getKeys()).containsEntry("report", 1);
    }

    @Test
    void aBucketSpacesAssignmentsAndTheTicksRefillIt() {
        apply(worker("w1", 10));
        apply(rateLimit("openai", 10.0, 2, T0));
        for (int i = 1; i <= 5; i++) {
            apply(rated(task("c" + i), "openai", 1));
        }
        assertThat(runningIds()).containsExactly("c1", "c2");
        assertThat(reasonOf("c3")).isEqualTo("rate limit openai: 0 of 10/s left, next in 100ms");
        assertThat(scheduler.nextDue()).isEqualTo(T0.plusMillis(100));

        assertThat(tick(T0.plusMillis(99))).isEmpty();
        tick(T0.plusMillis(100));
        assertThat(runningIds()).containsExactly("c1", "c2", "c3");
        tick(T0.plusMillis(350)); // 2.5 units came in, but the bucket holds at most its burst of 2: two more
        assertThat(runningIds()).containsExactly("c1", "c2", "c3", "c4", "c5");
        assertThat(scheduler.limits(T0.plusMillis(350)).rates()).singleElement().satisfies(r -> {
            assertThat(r.available()).isEqualTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(r.heldBack()).isZero();
        });
    }

    @Test
    void aTaskNamingAnUndefinedRateLimitWaitsUntilItIsDefined() {
        apply(worker("w1", 2));
        apply(rated(task("x1"), "search", 1));
        apply(task("u1"));
        assertThat(reasonOf("x1")).isEqualTo("rate limit search is not defined in pool p: the task waits until an admin defines it");
        assertThat(runningIds()).containsExactly("u1");

        List<Decision> defined = apply(rateLimit("search", 1.0, null, T0));
        assertThat(Out.assigned(defined).getTaskId()).isEqualTo("x1");
    }

    @Test
    void aTaskTakingMoreThanTheBurstWaitsForAWiderBucket() {
        apply(worker("w1", 2));
        apply(rateLimit("gpu-api", 1.0, 2, T0));
        apply(rated(task("big"), "gpu-api", 3));
        assertThat(reasonOf("big")).isEqualTo(
                "rate limit gpu-api holds at most 2 units (its burst) and the task takes 3: it waits until an admin raises the burst");
        assertThat(scheduler.nextDue()).isNull();

        apply(rateLimit("gpu-api", 1.0, 5, T0));
        assertThat(reasonOf("big")).isEqualTo("rate limit gpu-api: 2 of 1/s left, 3 needed, next in 1s");
        assertThat(scheduler.nextDue()).isEqualTo(T0.plusSeconds(1));
        tick(T0.plusSeconds(1));
        assertThat(runningIds()).containsExactly("big");
    }

    @Test
    void everyEndOfAnAttemptGivesItsKeyBackOnce() {
        apply(worker("w1", 4));
        apply(keyed(task("f1", retries(3)), "mutex", 1));
        apply(keyed(task("f2"), "mutex", 1));
        apply(keyed(task("f3"), "mutex", 1));
        assertThat(runningIds()).containsExactly("f1");

        // A failure ends f1's attempt: f2 takes the key; f1 waits out its backoff, then waits for the key.
        AttemptAssigned a = attemptOf("f1");
        running.remove(a);
        apply(failed(a, "boom", true));
        assertThat(runningIds()).containsExactly("f2");
        assertThat(keyUse("mutex").running()).isEqualTo(1);
        tick(T0.plusSeconds(2));
        assertThat(reasonOf("f1")).isEqualTo("concurrency key mutex: 1/1 running");

        // A cancelled assigned task gives it back: the next in line (f1 is back at its place, before f3) runs.
        running.remove(attemptOf("f2"));
        apply(cancel("f2"));
        assertThat(runningIds()).containsExactly("f1");

        // The worker leaves with f1 running: the attempt is lost, its key free; one task of the key runs on the next worker.
        running.clear();
        apply(new WorkerLeft("w1", POOL, 1L, "shutting down", T0));
        tick(T0.plusSeconds(600));
        assertThat(keyUse("mutex").running()).isZero();
        apply(worker("w2", 4));
        assertThat(runningIds()).hasSize(1);
        assertThat(keyUse("mutex").running()).isEqualTo(1);
    }

    @Test
    void aPreemptedAttemptGivesItsKeyBackAndItsSlotToTheTenantBelowItsGuarantee() {
        apply(In.share("prod", null, In.quota(1, null)));
        apply(In.preemption(true, 1_000L));
        apply(worker("w1", 1));
        apply(keyed(In.tenantTask("b1", "batch"), "shared", 1));
        apply(keyed(In.tenantTask("b2", "batch"), "shared", 1));
        apply(In.tenantTask("p1", "prod"));
        assertThat(runningIds()).containsExactly("b1");

        running.remove(attemptOf("b1"));
        tick(T0.plusSeconds(1));

        assertThat(runningIds()).as("the slot goes to prod, not to the next holder of b1's key").containsExactly("p1");
        assertThat(keyUse("shared").running()).isZero();
        assertThat(store.task("b1").getState()).isEqualTo(TaskState.WAITING);
        finish("p1");
        assertThat(runningIds()).containsExactly("b1");
        assertThat(keyUse("shared")).isEqualTo(new LimitsSnapshot.KeyUse("shared", null, 1, 1, 1));
    }

    @Test
    void aDrainingWorkersAttemptKeepsItsKeyUntilItEnds() {
        apply(worker("w1", 2));
        apply(keyed(task("d1"), "mutex", 1));
        apply(In.drain("w1"));
        apply(worker("w2", 2));
        apply(keyed(task("d2"), "mutex", 1));
        assertThat(runningIds()).as("d1 still runs on the draining w1 and holds the key").containsExactly("d1");
        assertThat(reasonOf("d2")).isEqualTo("concurrency key mutex: 1/1 running");

        finish("d1");

        assertThat(runningIds()).containsExactly("d2");
        assertThat(attemptOf("d2").getWorkerId()).isEqualTo("w2");
    }

    @Test
    void aNewSchedulerOverTheSameStoreContinues() {
        apply(worker("w1", 4));
        apply(rateLimit("openai", 1.0, 1, T0));
        apply(keyed(task("k1"), "mutex", 1));
        apply(keyed(task("k2"), "mutex", 1));
        apply(rated(task("r1"), "openai", 1));
        apply(rated(task("r2"), "openai", 1));
        LimitsSnapshot before = scheduler.limits(T0);

        scheduler = new PoolScheduler(POOL, store);

        assertThat(scheduler.limits(T0)).isEqualTo(before);
        assertThat(scheduler.nextDue()).isEqualTo(T0.plusSeconds(1));
        finish("k1");
        assertThat(runningIds()).containsExactly("k2", "r1");
        tick(T0.plusSeconds(1));
        assertThat(runningIds()).containsExactly("k2", "r1", "r2");
    }

    @Test
    void malformedLimitsAreRefusedNamingTheField() {
        InputRejected emptyKey = Out.only(apply(keyed(task("t1"), "", 2)), InputRejected.class);
        assertThat(emptyKey.getField()).isEqualTo("concurrency[0].key");
        InputRejected zero = Out.only(apply(keyed(task("t2"), "customer-1", 0)), InputRejected.class);
        assertThat(zero.getField()).isEqualTo("concurrency[0].max");
        InputRejected units = Out.only(apply(rated(task("t3"), "openai", 0)), InputRejected.class);
        assertThat(units.getField()).isEqualTo("rateLimits[0].units");
        InputRejected rate = Out.only(apply(rateLimit("openai", -1.0, null, T0)), InputRejected.class);
        assertThat(rate.getField()).isEqualTo("perSecond");
        InputRejected mixed = Out.only(apply(new LimitSet(POOL, LimitKind.CONCURRENCY_KEY, "k", 1, 2.0, null, "tests", T0)),
                InputRejected.class);
        assertThat(mixed.getField()).isEqualTo("perSecond");
        assertThat(store.task("t1")).isNull();
        assertThat(store.limits()).isNull();
    }
}
