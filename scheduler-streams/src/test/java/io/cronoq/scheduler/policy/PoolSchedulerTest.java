package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.cancel;
import static io.cronoq.scheduler.policy.In.drain;
import static io.cronoq.scheduler.policy.In.failed;
import static io.cronoq.scheduler.policy.In.heartbeat;
import static io.cronoq.scheduler.policy.In.labels;
import static io.cronoq.scheduler.policy.In.left;
import static io.cronoq.scheduler.policy.In.retries;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.task;
import static io.cronoq.scheduler.policy.In.worker;
import static io.cronoq.scheduler.policy.Out.all;
import static io.cronoq.scheduler.policy.Out.assigned;
import static io.cronoq.scheduler.policy.Out.only;
import static io.cronoq.scheduler.policy.Out.types;
import static io.cronoq.scheduler.policy.Out.workersOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.InputRejected;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Rules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PoolSchedulerTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);

    // ==== groups and placement ====================================================================

    @Test
    void unlabeledTaskPrefersLeastSpecializedGroup() {
        scheduler.register(worker("gpu-1", 8, "gpu=a100"));
        scheduler.register(worker("plain-1", 1));

        // The plain group has fewer free slots, but fewer labels comes first: keep the GPU free.
        assertThat(assigned(scheduler.submit(task("t1"))).getWorkerId()).isEqualTo("plain-1");
        // When the least specialized group is full, any group with a free slot will do.
        AttemptAssigned second = assigned(scheduler.submit(task("t2")));
        assertThat(second.getWorkerId()).isEqualTo("gpu-1");
        assertThat(second.getGroup()).isEqualTo(labels("gpu=a100"));
    }

    @Test
    void unlabeledTaskTieBreaksOnMostFreeSlots() {
        scheduler.register(worker("eu-1", 2, "zone=eu"));
        scheduler.register(worker("us-1", 4, "zone=us"));

        // Same number of labels: the group with the most free slots wins.
        assertThat(workersOf(scheduler.submit(task("t1")))).as("4 free vs 2").containsExactly("us-1");
        assertThat(workersOf(scheduler.submit(task("t2")))).as("3 free vs 2").containsExactly("us-1");
        assertThat(workersOf(scheduler.submit(task("t3")))).as("2 vs 2: label key decides").containsExactly("eu-1");
        assertThat(workersOf(scheduler.submit(task("t4")))).as("2 free vs 1").containsExactly("us-1");
    }

    @Test
    void labeledTaskRunsOnlyInGroupCarryingAllRequiredLabels() {
        scheduler.register(worker("gpu-1", 4, "gpu=a100"));
        scheduler.register(worker("eu-1", 4, "zone=eu"));
        scheduler.register(worker("gpu-eu-1", 1, "gpu=a100", "zone=eu"));

        assertThat(workersOf(scheduler.submit(task("t1", "gpu=a100", "zone=eu")))).containsExactly("gpu-eu-1");
        // Its only group is full: it waits rather than run on a group missing one of the labels.
        List<Decision> second = scheduler.submit(task("t2", "zone=eu", "gpu=a100"));
        assertThat(all(second, AttemptAssigned.class)).isEmpty();
        assertThat(only(second, TaskWaiting.class).getReason())
                .isEqualTo("1 worker matches; its only slot is busy; 1st in line");
        // A value that differs is a different label.
        assertThat(only(scheduler.submit(task("t3", "gpu=h100")), TaskWaiting.class).getReason())
                .isEqualTo("0/3 workers can run it: 3 lack gpu=h100");
    }

    @Test
    void groupMayCarryMoreLabelsThanRequired() {
        scheduler.register(worker("big-1", 4, "gpu=a100", "zone=eu", "disk=ssd"));

        AttemptAssigned a = assigned(scheduler.submit(task("t1", "gpu=a100")));
        assertThat(a.getWorkerId()).isEqualTo("big-1");
        assertThat(a.getGroup()).isEqualTo(labels("disk=ssd", "gpu=a100", "zone=eu"));

        // Among several groups that can serve it, the one with the fewest labels is preferred.
        scheduler.register(worker("gpu-1", 1, "gpu=a100"));
        assertThat(workersOf(scheduler.submit(task("t2", "gpu=a100")))).containsExactly("gpu-1");
    }

    @Test
    void burstSpreadsRoundRobinOverLeastLoadedWorkers() {
        scheduler.register(worker("w1", 4));
        scheduler.register(worker("w2", 4));
        scheduler.register(worker("w3", 4));

        List<AttemptAssigned> burst = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            burst.add(assigned(scheduler.submit(task("t" + i))));
        }
        assertThat(burst).extracting(AttemptAssigned::getWorkerId)
                .containsExactly("w1", "w2", "w3", "w1", "w2", "w3");

        // w2 finishes both: it is now the least loaded, and gets the next two.
        scheduler.succeeded(succeeded(burst.get(1)));
        scheduler.succeeded(succeeded(burst.get(4)));
        assertThat(workersOf(scheduler.submit(task("t7")))).containsExactly("w2");
        assertThat(workersOf(scheduler.submit(task("t8")))).containsExactly("w2");
        // All at 2 again: the one served longest ago goes first (w1, then w3, then w2).
        assertThat(workersOf(scheduler.submit(task("t9")))).containsExactly("w1");
        assertThat(workersOf(scheduler.submit(task("t10")))).containsExactly("w3");
        assertThat(workersOf(scheduler.submit(task("t11")))).containsExactly("w2");
    }

    @Test
    void neverAssignsBeyondFreeSlots() {
        scheduler.register(worker("w1", 2));
        scheduler.register(worker("w2", 3));

        int assigned = 0;
        for (int i = 0; i < 10; i++) {
            assigned += all(scheduler.submit(task("t" + i)), AttemptAssigned.class).size();
        }
        assertThat(assigned).isEqualTo(5);
        assertThat(scheduler.worker("w1").getRunning()).hasSize(2);
        assertThat(scheduler.worker("w2").getRunning()).hasSize(3);
        PoolSnapshot snapshot = scheduler.snapshot();
        assertThat(snapshot.capacity()).isEqualTo(5);
        assertThat(snapshot.busy()).isEqualTo(5);
        assertThat(snapshot.waiting()).isEqualTo(5);
    }

    @Test
    void waitingLabeledTaskDoesNotBlockOthers() {
        scheduler.register(worker("w1", 2));

        List<Decision> gpu = scheduler.submit(task("needs-gpu", "gpu=a100"));
        assertThat(types(gpu)).containsExactly("TaskSubmitted", "TaskWaiting");
        assertThat(only(gpu, TaskWaiting.class).getReason()).isEqualTo("0/1 workers can run it: 1 lacks gpu=a100");

        assertThat(workersOf(scheduler.submit(task("t1")))).containsExactly("w1");
        assertThat(workersOf(scheduler.submit(task("t2")))).containsExactly("w1");
        assertThat(store.task("needs-gpu").getState()).isEqualTo(TaskState.WAITING);
        assertThat(store.task("needs-gpu").getWaitingReason()).isEqualTo("0/1 workers can run it: 1 lacks gpu=a100");
    }

    @Test
    void freedSlotGoesToOldestWaitingTaskItCanServe() {
        scheduler.register(worker("gpu-1", 1, "gpu=a100"));
        AttemptAssigned running = assigned(scheduler.submit(task("t1", "gpu=a100")));
        scheduler.submit(task("t2-eu", "zone=eu"));  // oldest, but the GPU group cannot serve it
        scheduler.submit(task("t3-plain"));           // oldest the GPU group can serve
        scheduler.submit(task("t4-gpu", "gpu=a100"));

        List<Decision> done = scheduler.succeeded(succeeded(running));

        assertThat(types(done)).containsExactly("AttemptSucceeded", "TaskFinished", "AttemptAssigned");
        AttemptAssigned next = assigned(done);
        assertThat(next.getTaskId()).isEqualTo("t3-plain");
        assertThat(assigned(scheduler.succeeded(succeeded(next))).getTaskId()).isEqualTo("t4-gpu");
        assertThat(store.task("t2-eu").getState()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void registeringWorkerTakesWaitingTasksOldestFirstUpToItsSlots() {
        scheduler.submit(task("t1"));
        scheduler.submit(task("t2", "gpu=a100"));
        scheduler.submit(task("t3"));
        scheduler.submit(task("t4"));

        List<Decision> joined = scheduler.register(worker("gpu-1", 2, "gpu=a100"));

        assertThat(all(joined, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                .containsExactly("t1", "t2");
        assertThat(scheduler.snapshot().waiting()).isEqualTo(2);
    }

    @Test
    void unknownLabelsWaitUntilMatchingWorkerRegisters() {
        scheduler.register(worker("plain-1", 4));
        List<Decision> submitted = scheduler.submit(task("t1", "gpu=a100", "zone=eu"));
        assertThat(only(submitted, TaskWaiting.class).getReason())
                .isEqualTo("0/1 workers can run it: 1 lacks gpu=a100,zone=eu");

        // A worker with only one of the labels does not take it.
        assertThat(all(scheduler.register(worker("gpu-us", 4, "gpu=a100", "zone=us")), AttemptAssigned.class))
                .isEmpty();

        List<Decision> joined = scheduler.register(worker("gpu-eu", 4, "gpu=a100", "zone=eu"));
        assertThat(types(joined)).containsExactly("WorkerRegistered", "WorkerAccepted", "RegistrationAccepted",
                "AttemptAssigned");
        AttemptAssigned a = assigned(joined);
        assertThat(a.getTaskId()).isEqualTo("t1");
        assertThat(a.getWorkerId()).isEqualTo("gpu-eu");
        assertThat(joined.get(3).worker()).isEqualTo("gpu-eu");
    }

    // ==== submissions and cancellation ============================================================

    @Test
    void duplicateSubmissionCreatesOneTask() {
        scheduler.register(worker("w1", 4));
        TaskSubmitted first = task("t1");
        List<Decision> accepted = scheduler.submit(first);
        assertThat(accepted.get(0)).isEqualTo(Decision.journal(first, null));

        List<Decision> again = scheduler.submit(task("t1"));

        assertThat(types(again)).containsExactly("DuplicateSubmission");
        assertThat(again.get(0).journal()).isTrue();
        assertThat(again.get(0).cause()).contains("already exists (ASSIGNED)");
        assertThat(store.task("t1").getAttempts()).hasSize(1);
        assertThat(scheduler.snapshot().busy()).isEqualTo(1);
    }

    @Test
    void assignmentCarriesTaskPayloadDeadlineAndTimeout() {
        scheduler.register(worker("w1", 1, "gpu=a100"));
        TaskSubmitted t = task("t1");
        t.setDeadline(T0.plusSeconds(60));

        List<Decision> out = scheduler.submit(t);

        Decision d = out.get(1);
        assertThat(d.journal()).isTrue();
        assertThat(d.worker()).isEqualTo("w1");
        AttemptAssigned a = (AttemptAssigned) d.event();
        assertThat(a.getAttempt()).isEqualTo(1);
        assertThat(a.getGeneration()).isEqualTo(1);
        assertThat(a.getPool()).isEqualTo(POOL);
        assertThat(StandardCharsets.UTF_8.decode(a.getPayload().duplicate()).toString()).isEqualTo("payload of t1");
        assertThat(a.getDeadline()).isEqualTo(T0.plusSeconds(60));
        assertThat(a.getTimeoutMs()).isEqualTo(30_000L);
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.ASSIGNED);

        scheduler.started(started(a));
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.RUNNING);
    }

    @Test
    void cancelWaitingTaskRemovesItFromQueue() {
        scheduler.submit(task("t1", "gpu=a100"));
        scheduler.submit(task("t2", "gpu=a100"));

        List<Decision> out = scheduler.cancel(cancel("t1"));

        assertThat(types(out)).containsExactly("TaskCancelRequested", "TaskCancelled");
        TaskCancelled c = only(out, TaskCancelled.class);
        assertThat(c.getPreviousState()).isEqualTo(TaskState.WAITING);
        assertThat(c.getReason()).isEqualTo("no longer needed");
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.CANCELLED);
        assertThat(scheduler.snapshot().waiting()).isEqualTo(1);
        assertThat(store.waiting().entries()).extracting(WaitingQueue.Entry::taskId).containsExactly("t2");
        // The next matching slot goes to the task still waiting.
        assertThat(assigned(scheduler.register(worker("gpu-1", 2, "gpu=a100"))).getTaskId()).isEqualTo("t2");
    }

    @Test
    void cancelRunningTaskRevokesAttemptAndFreesSlot() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned running = assigned(scheduler.submit(task("t1")));
        scheduler.started(started(running));
        scheduler.submit(task("t2"));

        List<Decision> out = scheduler.cancel(cancel("t1"));

        assertThat(types(out)).containsExactly("TaskCancelRequested", "AttemptRevoked", "TaskCancelled",
                "AttemptAssigned");
        Decision revoke = out.get(1);
        assertThat(revoke.worker()).isEqualTo("w1");
        assertThat(revoke.journal()).isTrue();
        AttemptRevoked r = (AttemptRevoked) revoke.event();
        assertThat(r.getReason()).isEqualTo("cancelled");
        assertThat(r.getAttempt()).isEqualTo(1);
        assertThat(only(out, TaskCancelled.class).getPreviousState()).isEqualTo(TaskState.RUNNING);
        assertThat(assigned(out).getTaskId()).isEqualTo("t2");
        assertThat(store.task("t1").getAttempts().get(0).getOutcome()).isEqualTo(AttemptOutcome.CANCELLED);

        // The revoked copy reporting success afterwards is fenced.
        List<Decision> late = scheduler.succeeded(succeeded(running));
        assertThat(types(late)).containsExactly("InputRejected", "WorkerFenced");
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.CANCELLED);
    }

    @Test
    void aSubmissionOnTheTopicWithTooManyLabelsIsRejectedAndChangesNothing() {
        String[] required = new String[Rules.MAX_LABELS + 1];
        for (int i = 0; i < required.length; i++) {
            required[i] = "l" + i + "=v";
        }

        InputRejected rejected = only(scheduler.submit(task("t1", required)), InputRejected.class);

        assertThat(rejected.getCode()).isEqualTo(RejectionCode.INVALID_ARGUMENT);
        assertThat(rejected.getField()).isEqualTo("labels");
        assertThat(rejected.getReason()).contains("at most " + Rules.MAX_LABELS);
        assertThat(store.task("t1")).isNull();
    }

    @Test
    void cancelFinishedTaskIsRejectedAndUnknownIsNotFound() {
        scheduler.register(worker("w1", 1));
        scheduler.succeeded(succeeded(assigned(scheduler.submit(task("t1")))));

        InputRejected finished = only(scheduler.cancel(cancel("t1")), InputRejected.class);
        assertThat(finished.getCode()).isEqualTo(RejectionCode.FAILED_PRECONDITION);
        assertThat(finished.getReason()).contains("already SUCCEEDED");

        InputRejected unknown = only(scheduler.cancel(cancel("nope")), InputRejected.class);
        assertThat(unknown.getCode()).isEqualTo(RejectionCode.NOT_FOUND);
        assertThat(unknown.getField()).isEqualTo("taskId");
    }

    // ==== state of record =========================================================================

    @Test
    void reloadedSchedulerContinuesIdentically() {
        // Evictions aside: a reloaded scheduler gives every worker a full timeout from its first
        // tick (it cannot tell silence from its own absence), so it deliberately evicts later.
        TimeRules noEvictions = new TimeRules(Long.MAX_VALUE / 2, 30_000, 600_000, 300_000, 60_000,
                TimeRules.DEFAULT_RETENTION_MS);
        InMemoryPoolStore straightStore = InMemoryPoolStore.copying();
        PoolScheduler straight = new PoolScheduler(POOL, straightStore, noEvictions);
        RandomWorkload straightInputs = new RandomWorkload(7);
        InMemoryPoolStore reloadedStore = InMemoryPoolStore.copying();
        PoolScheduler reloaded = new PoolScheduler(POOL, reloadedStore, noEvictions);
        RandomWorkload reloadedInputs = new RandomWorkload(7);

        for (int step = 0; step < 2_000; step++) {
            if (step % 37 == 36) {
                // A restart: everything it knows comes back from the store (leases and timers too).
                reloaded = new PoolScheduler(POOL, reloadedStore, noEvictions);
            }
            List<Decision> expected = straightInputs.step(straight);
            assertThat(reloadedInputs.step(reloaded)).as("step %d", step).isEqualTo(expected);
        }
        assertThat(reloaded.snapshot()).isEqualTo(straight.snapshot());
        assertThat(reloadedStore.waiting().entries()).containsExactlyInAnyOrderElementsOf(
                straightStore.waiting().entries());
        assertThat(reloadedStore.timers().all()).isEqualTo(straightStore.timers().all());
    }

    @Test
    void roundRobinAndLinesSurviveReload() {
        scheduler.register(worker("w1", 2));
        scheduler.register(worker("w2", 2));
        scheduler.submit(task("t1"));
        scheduler.submit(task("t2", "gpu=a100"));

        PoolScheduler restarted = new PoolScheduler(POOL, store);

        // w1 was served last before the restart: the rotation goes on with w2.
        assertThat(workersOf(restarted.submit(task("t3")))).containsExactly("w2");
        assertThat(restarted.snapshot().waiting()).isEqualTo(1);
        assertThat(assigned(restarted.register(worker("gpu-1", 1, "gpu=a100"))).getTaskId()).isEqualTo("t2");
    }

    // ==== validation ==============================================================================

    static Stream<Arguments> invalidInputs() {
        return Stream.of(
                Arguments.of("empty pool", (Function<PoolScheduler, List<Decision>>) s ->
                        s.submit(withPool(task("t1"), "")), "pool", "pool is empty"),
                Arguments.of("another pool", (Function<PoolScheduler, List<Decision>>) s ->
                        s.submit(withPool(task("t1"), "other")), "pool", "not this scheduler's pool 'p'"),
                Arguments.of("empty task id", (Function<PoolScheduler, List<Decision>>) s ->
                        s.submit(task("")), "taskId", "a task id is 1 to 255 characters"),
                Arguments.of("empty worker id", (Function<PoolScheduler, List<Decision>>) s ->
                        s.register(worker("", 1)), "workerId", "workerId is empty"),
                Arguments.of("no slots", (Function<PoolScheduler, List<Decision>>) s ->
                        s.register(worker("w1", 0)), "slots", "a worker declares 1 to 65536 slots"),
                Arguments.of("bad label name", (Function<PoolScheduler, List<Decision>>) s ->
                        s.submit(task("t1", "gpu model=a100")), "labels", "label name 'gpu model' is not allowed"),
                Arguments.of("empty label value", (Function<PoolScheduler, List<Decision>>) s ->
                        s.register(worker("w1", 1, "gpu=")), "labels.gpu", "label value is empty"),
                Arguments.of("cancel without id", (Function<PoolScheduler, List<Decision>>) s ->
                        s.cancel(cancel("")), "taskId", "taskId is empty"),
                Arguments.of("attempt zero", (Function<PoolScheduler, List<Decision>>) s ->
                        s.succeeded(new io.cronoq.events.AttemptSucceeded("t1", POOL, 0, "w1", 1L, T0, null)),
                        "attempt", "attempts are numbered from 1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidInputs")
    void invalidInputIsRejectedWithFieldAndReason(String name, Function<PoolScheduler, List<Decision>> input,
                                                  String field, String reason) {
        List<Decision> out = input.apply(scheduler);

        assertThat(types(out)).containsExactly("InputRejected");
        InputRejected r = (InputRejected) out.get(0).event();
        assertThat(r.getCode()).isEqualTo(RejectionCode.INVALID_ARGUMENT);
        assertThat(r.getField()).isEqualTo(field);
        assertThat(r.getReason()).contains(reason);
        assertThat(out.get(0).journal()).isTrue();
        // Nothing changed.
        assertThat(store.taskIds()).isEmpty();
        assertThat(scheduler.snapshot().groups()).isEmpty();
    }

    @Test
    void invalidInputIsRejectedWithFieldAndReasonNamingWhatIsAllowed() {
        InputRejected r = only(scheduler.register(worker("bad id!", 1)), InputRejected.class);
        assertThat(r.getInputType()).isEqualTo("WorkerRegistered");
        assertThat(r.getWorkerId()).isEqualTo("bad id!");
        assertThat(r.getReason()).isEqualTo("workerId 'bad id!' is not allowed; a worker id is 1 to 255 characters: "
                + "letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
    }

    // ==== helpers =================================================================================

    private static TaskSubmitted withPool(TaskSubmitted t, String pool) {
        t.setPool(pool);
        return t;
    }

    static Decision single(List<Decision> decisions) {
        assertThat(decisions).hasSize(1);
        return decisions.get(0);
    }

    static TaskSubmitted at(TaskSubmitted task, long seconds) {
        task.setSubmittedAt(T0.plusSeconds(seconds));
        return task;
    }
}
