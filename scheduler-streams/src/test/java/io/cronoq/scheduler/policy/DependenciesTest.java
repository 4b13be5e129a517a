package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.retries;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.TaskBlocked;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

/** Tasks that wait for their parents, in one pool and across pools, as the policy decides it. */
class DependenciesTest {

    /** Pools "p" and "q", each with its scheduler; what one sends another is handed over at once, in order. */
    private final Map<String, InMemoryPoolStore> stores = new LinkedHashMap<>();
    private final Map<String, PoolScheduler> pools = new LinkedHashMap<>();
    /** Every event sent between the pools, in order. */
    private final List<SpecificRecord> sent = new ArrayList<>();

    DependenciesTest() {
        for (String pool : List.of("p", "q")) {
            InMemoryPoolStore store = InMemoryPoolStore.copying();
            stores.put(pool, store);
            pools.put(pool, new PoolScheduler(pool, store));
        }
    }

    /** Applies an input to its pool and whatever it sends other pools, and returns every decision of them all. */
    private List<Decision> apply(SpecificRecord input) {
        String pool = (String) input.get(input.getSchema().getField("pool").pos());
        List<Decision> all = new ArrayList<>();
        Deque<Map.Entry<String, SpecificRecord>> queue = new ArrayDeque<>();
        queue.add(Map.entry(pool, input));
        while (!queue.isEmpty()) {
            var next = queue.poll();
            for (Decision d : pools.get(next.getKey()).apply(next.getValue(), T0)) {
                all.add(d);
                if (d.pool() != null) {
                    assertThat(d.pool()).as("a pool sends itself nothing").isNotEqualTo(next.getKey());
                    sent.add(d.event());
                    queue.add(Map.entry(d.pool(), d.event()));
                }
            }
        }
        return all;
    }

    private static TaskSubmitted task(String pool, String id, Dependency... after) {
        TaskSubmitted t = In.task(id);
        t.setPool(pool);
        t.setAfter(new ArrayList<>(List.of(after)));
        return t;
    }

    private static Dependency on(String parent) {
        return new Dependency(parent, null, ParentCondition.SUCCEEDED);
    }

    private static Dependency on(String parent, String pool, ParentCondition when) {
        return new Dependency(parent, pool, when);
    }

    private static WorkerRegistered worker(String pool, String id, int slots) {
        WorkerRegistered w = In.worker(id, slots);
        w.setPool(pool);
        return w;
    }

    private static AttemptSucceeded succeeded(AttemptAssigned a, String result) {
        return new AttemptSucceeded(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0,
                result == null ? null : ByteBuffer.wrap(result.getBytes(StandardCharsets.UTF_8)));
    }

    /** A failure the task is not retried after (its error says it would fail again). */
    private static AttemptFailed failed(AttemptAssigned a, String error) {
        return new AttemptFailed(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration(), T0,
                error, false);
    }

    private TaskRecord record(String pool, String id) {
        return stores.get(pool).task(id);
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    @Test
    void aChildWaitsBlockedHoldingNoSlotAndStartsWithItsParentsResultOnceItSucceeds() {
        apply(worker("p", "w1", 2));
        AttemptAssigned parent = Out.assigned(apply(task("p", "a")));

        List<Decision> submitted = apply(task("p", "b", on("a")));
        assertThat(Out.only(submitted, TaskBlocked.class).getReason()).isEqualTo("waits for parent a to succeed");
        assertThat(Out.all(submitted, AttemptAssigned.class)).as("a free slot is not taken").isEmpty();
        assertThat(record("p", "b").getState()).isEqualTo(TaskState.BLOCKED);
        assertThat(pools.get("p").snapshot().blocked()).isEqualTo(1);
        assertThat(pools.get("p").snapshot().waiting()).isZero();
        assertThat(pools.get("p").snapshot().busy()).isEqualTo(1);

        List<Decision> done = apply(succeeded(parent, "{\"rows\": 42}"));
        AttemptAssigned child = Out.assigned(done);
        assertThat(child.getTaskId()).isEqualTo("b");
        assertThat(child.getParentResults()).containsOnlyKeys("a");
        assertThat(text(child.getParentResults().get("a"))).isEqualTo("{\"rows\": 42}");
        assertThat(pools.get("p").snapshot().blocked()).isZero();
        assertThat(sent).as("one pool talks to itself directly").isEmpty();
    }

    @Test
    void aFailedParentCancelsItsChildAndTheCancellationReachesTheGrandchild() {
        apply(worker("p", "w1", 1));
        TaskSubmitted a = task("p", "a");
        a.setRetry(retries(2));
        AttemptAssigned first = Out.assigned(apply(a));
        apply(task("p", "b", on("a")));
        apply(task("p", "c", on("b")));
        assertThat(pools.get("p").snapshot().blocked()).isEqualTo(2);

        AttemptFailed retryable = failed(first, "disk full");
        retryable.setRetryable(true);
        apply(retryable);
        assertThat(record("p", "b").getState()).as("a retry is not an end").isEqualTo(TaskState.BLOCKED);
        AttemptAssigned second = Out.assigned(pools.get("p").tick(T0.plusSeconds(2)));

        List<Decision> out = apply(failed(second, "out of memory\nat line 3"));
        List<TaskCancelled> cancelled = Out.all(out, TaskCancelled.class);
        assertThat(cancelled).extracting(TaskCancelled::getTaskId).containsExactly("b", "c");
        assertThat(cancelled.get(0).getReason()).isEqualTo("parent a failed (attempt 2 of 2): out of memory");
        assertThat(cancelled.get(0).getPreviousState()).isEqualTo(TaskState.BLOCKED);
        assertThat(cancelled.get(1).getReason())
                .isEqualTo("parent b was cancelled because parent a failed (attempt 2 of 2): out of memory");
        assertThat(record("p", "c").getState()).isEqualTo(TaskState.CANCELLED);
        assertThat(pools.get("p").snapshot().blocked()).isZero();
    }

    @Test
    void aCleanUpTaskRunsAfterItsParentFailsWhenItAsksTo() {
        apply(worker("p", "w1", 1));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        TaskSubmitted cleanUp = task("p", "clean", on("a"));
        cleanUp.setRunIfParentUnmet(true);
        apply(cleanUp);

        AttemptAssigned next = Out.assigned(apply(failed(a, "boom")));
        assertThat(next.getTaskId()).isEqualTo("clean");
        assertThat(next.getParentResults()).isEmpty();
    }

    @Test
    void aTaskThatWaitsForAFailureRunsOnOneAndIsCancelledBySuccess() {
        apply(worker("p", "w1", 2));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        AttemptAssigned b = Out.assigned(apply(task("p", "b")));
        apply(task("p", "alert-a", on("a", null, ParentCondition.FAILED)));
        apply(task("p", "alert-b", on("b", null, ParentCondition.FAILED)));

        List<Decision> aFailed = apply(failed(a, "boom"));
        assertThat(Out.assigned(aFailed).getTaskId()).isEqualTo("alert-a");
        List<Decision> bSucceeded = apply(succeeded(b, null));
        assertThat(Out.only(bSucceeded, TaskCancelled.class).getReason())
                .isEqualTo("parent b succeeded, and this task runs only after it fails");
    }

    @Test
    void aTaskWaitingForAnyEndRunsAfterACancellation() {
        apply(worker("p", "w1", 1));
        apply(task("p", "busy"));
        apply(task("p", "a"));
        apply(task("p", "report", on("a", null, ParentCondition.FINISHED)));
        TaskSubmitted other = task("p", "other");
        apply(other);

        List<Decision> out = apply(new TaskCancelRequested("a", "p", "not needed", "tests", T0));
        assertThat(Out.all(out, TaskCancelled.class)).extracting(TaskCancelled::getTaskId).containsExactly("a");
        assertThat(record("p", "report").getState()).isEqualTo(TaskState.WAITING);
        assertThat(Out.only(out, TaskWaiting.class).getTaskId()).isEqualTo("report");
    }

    @Test
    void aParentThatEndedAlreadyIsJudgedAtOnce() {
        apply(worker("p", "w1", 1));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        apply(succeeded(a, "done"));

        List<Decision> out = apply(task("p", "b", on("a")));
        assertThat(Out.types(out)).containsSubsequence("TaskSubmitted", "TaskBlocked", "AttemptAssigned");
        assertThat(text(Out.assigned(out).getParentResults().get("a"))).isEqualTo("done");
        assertThat(pools.get("p").snapshot().blocked()).isZero();
    }

    @Test
    void anUnknownParentCancelsTheChildSayingSo() {
        List<Decision> out = apply(task("p", "b", on("nobody")));
        assertThat(Out.only(out, TaskCancelled.class).getReason())
                .isEqualTo("parent nobody is unknown in pool p (never submitted there, or forgotten after its retention)");
        assertThat(pools.get("p").snapshot().blocked()).isZero();
    }

    @Test
    void aReduceStartsOnceAllItsParentsSucceededAndReceivesEveryResult() {
        apply(worker("p", "w1", 3));
        List<AttemptAssigned> shards = new ArrayList<>();
        for (String id : List.of("s1", "s2", "s3")) {
            shards.add(Out.assigned(apply(task("p", id))));
        }
        List<Decision> blocked = apply(task("p", "reduce", on("s1"), on("s2"), on("s3")));
        assertThat(Out.only(blocked, TaskBlocked.class).getReason()).isEqualTo("waits for 3 of its 3 parents to end as it asks");

        apply(succeeded(shards.get(1), "2"));
        assertThat(stores.get("p").dependencies().unmet("reduce")).as("counted beside the record").isEqualTo(2);
        assertThat(record("p", "reduce").getUnmetParents()).as("the record is rewritten at the release only")
                .isEqualTo(3);
        apply(succeeded(shards.get(0), "1"));
        AttemptAssigned reduce = Out.assigned(apply(succeeded(shards.get(2), "3")));
        assertThat(reduce.getTaskId()).isEqualTo("reduce");
        Map<String, String> results = new LinkedHashMap<>();
        reduce.getParentResults().forEach((k, v) -> results.put(k, text(v)));
        assertThat(results).containsOnly(Map.entry("s1", "1"), Map.entry("s2", "2"), Map.entry("s3", "3"));
    }

    @Test
    void parentsAndChildrenOfDifferentPoolsTellEachOtherThroughTheirPools() {
        apply(worker("q", "gpu-1", 1));
        apply(worker("p", "cpu-1", 1));
        AttemptAssigned train = Out.assigned(apply(task("q", "train")));

        apply(task("p", "evaluate", on("train", "q", ParentCondition.SUCCEEDED)));
        assertThat(sent).hasSize(1);
        ParentWatched watch = (ParentWatched) sent.get(0);
        assertThat(watch.getPool()).isEqualTo("q");
        assertThat(watch.getChildPool()).isEqualTo("p");
        assertThat(stores.get("q").task("train").getChildren()).isEqualTo(1);

        List<Decision> out = apply(succeeded(train, "s3://models/7"));
        assertThat(sent).hasSize(2);
        ParentEnded end = (ParentEnded) sent.get(1);
        assertThat(end.getState()).isEqualTo(TaskState.SUCCEEDED);
        AttemptAssigned evaluate = Out.assigned(out);
        assertThat(evaluate.getPool()).isEqualTo("p");
        assertThat(text(evaluate.getParentResults().get("train"))).isEqualTo("s3://models/7");
        assertThat(stores.get("q").dependencies().children("train")).as("told children are forgotten").isEmpty();
    }

    @Test
    void cancellingABlockedTaskCancelsItsChildrenAndNeverStartsIt() {
        apply(worker("p", "w1", 1));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        apply(task("p", "b", on("a")));
        apply(task("p", "c", on("b")));

        List<Decision> out = apply(new TaskCancelRequested("b", "p", "wrong input", "tests", T0));
        assertThat(Out.all(out, TaskCancelled.class)).extracting(TaskCancelled::getTaskId, TaskCancelled::getReason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("b", "wrong input"),
                        org.assertj.core.groups.Tuple.tuple("c", "parent b was cancelled"));
        List<Decision> later = apply(succeeded(a, null));
        assertThat(Out.all(later, AttemptAssigned.class)).isEmpty();
        assertThat(record("p", "b").getState()).isEqualTo(TaskState.CANCELLED);
    }

    @Test
    void aReleasedChildKeepsItsSubmissionOrderAgainstTasksSubmittedWhileItWaited() {
        apply(worker("p", "w1", 1));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        apply(task("p", "child", on("a")));
        TaskSubmitted later = task("p", "later");
        later.setSubmittedAt(T0.plusSeconds(10));
        apply(later);

        // a's slot frees: the child, submitted before "later", joins the line ahead of it and takes the slot.
        AttemptAssigned next = Out.assigned(apply(succeeded(a, null)));
        assertThat(next.getTaskId()).isEqualTo("child");
    }

    @Test
    void aForgottenTaskTakesItsResultAndItsParentsEndsWithIt() {
        PoolScheduler p = pools.get("p");
        apply(worker("p", "w1", 1));
        AttemptAssigned a = Out.assigned(apply(task("p", "a")));
        apply(task("p", "b", on("a")));
        AttemptAssigned b = Out.assigned(apply(succeeded(a, "x")));
        apply(succeeded(b, "y"));
        assertThat(stores.get("p").dependencies().result("a")).isNotNull();
        assertThat(stores.get("p").dependencies().heard("b")).hasSize(1);

        p.tick(Instant.now().plusSeconds(365L * 24 * 3600 * 10));
        assertThat(stores.get("p").task("a")).isNull();
        assertThat(stores.get("p").dependencies().result("a")).isNull();
        assertThat(stores.get("p").dependencies().result("b")).isNull();
        assertThat(stores.get("p").dependencies().heard("b")).isEmpty();
    }

    @Test
    void aParentOfAnotherPoolNotSubmittedYetIsAwaitedForAGraceThenUnknown() {
        apply(worker("q", "gpu-1", 1));
        apply(worker("p", "cpu-1", 1));
        apply(task("p", "early", on("late", "q", ParentCondition.SUCCEEDED)));
        apply(task("p", "orphan", on("never", "q", ParentCondition.SUCCEEDED)));
        assertThat(record("p", "early").getState()).as("its parent's submission may be on its way")
                .isEqualTo(TaskState.BLOCKED);

        AttemptAssigned late = Out.assigned(apply(task("q", "late")));
        assertThat(stores.get("q").task("late").getChildren()).as("it takes the child that awaited it").isEqualTo(1);
        assertThat(Out.assigned(apply(succeeded(late, null))).getTaskId()).isEqualTo("early");

        List<Decision> before = pools.get("q").tick(T0.plusSeconds(59));
        assertThat(Out.all(before, ParentEnded.class)).isEmpty();
        assertThat(pools.get("q").nextDue()).isEqualTo(T0.plus(java.time.Duration.ofMillis(Dependencies.AWAIT_UNKNOWN_PARENT_MS)));
        for (Decision d : pools.get("q").tick(T0.plusSeconds(60))) {
            if (d.pool() != null) {
                pools.get(d.pool()).apply(d.event(), T0.plusSeconds(60));
            }
        }
        assertThat(record("p", "orphan").getState()).isEqualTo(TaskState.CANCELLED);
        assertThat(pools.get("q").nextDue()).as("nothing awaited: only the finished task's retention is due")
                .isEqualTo(T0.plus(java.time.Duration.ofDays(7)));
    }
}
