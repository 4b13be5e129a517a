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

    // ==== completions =============================================================================

    @Test
    void successFinishesTaskAndFreesSlot() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned a = assigned(scheduler.submit(task("t1")));

        List<Decision> out = scheduler.succeeded(succeeded(a));

        TaskFinished f = only(out, TaskFinished.class);
        assertThat(f.getOutcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        assertThat(f.getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.snapshot().busy()).isZero();
    }

    @Test
    void aHugeErrorTextIsShortenedAsJournaledAndStoredNeverRefused() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned first = assigned(scheduler.submit(task("t1")));
        String huge = "x".repeat(900_000);

        List<Decision> out = scheduler.failed(failed(first, huge, false));

        assertThat(types(out)).containsExactly("AttemptFailed", "TaskFinished");
        String journaled = only(out, io.cronoq.events.AttemptFailed.class).getError();
        assertThat(journaled).hasSize(Rules.MAX_ERROR_LENGTH).endsWith("… (" + (900_000 - Rules.MAX_ERROR_LENGTH)
                + " more characters cut)");
        assertThat(only(out, TaskFinished.class).getError()).isEqualTo(journaled);
        assertThat(store.task("t1").getAttempts().get(0).getError()).isEqualTo(journaled);
        assertThat(Rules.shortened("short", Rules.MAX_ERROR_LENGTH)).isEqualTo("short");
        assertThat(Rules.shortened(null, 10)).isNull();
    }

    @Test
    void retryableFailureWithoutBackoffRequeuesAtOnceUntilMaxAttempts() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned first = assigned(scheduler.submit(task("t1", new RetryPolicy(3, 0L, 0L, 2.0))));
        scheduler.submit(task("t2")); // waits behind t1; t1's retry keeps its older place

        List<Decision> out1 = scheduler.failed(failed(first, "boom 1", true));
        assertThat(types(out1)).containsExactly("AttemptFailed", "TaskFinished", "AttemptAssigned");
        TaskFinished f1 = only(out1, TaskFinished.class);
        assertThat(f1.getOutcome()).isEqualTo(AttemptOutcome.FAILED);
        assertThat(f1.getState()).isEqualTo(TaskState.WAITING);
        assertThat(f1.getError()).isEqualTo("boom 1");
        AttemptAssigned second = assigned(out1);
        assertThat(second.getTaskId()).isEqualTo("t1");
        assertThat(second.getAttempt()).isEqualTo(2);

        AttemptAssigned third = assigned(scheduler.failed(failed(second, "boom 2", true)));
        assertThat(third.getAttempt()).isEqualTo(3);

        List<Decision> out3 = scheduler.failed(failed(third, "boom 3", true));
        TaskFinished last = only(out3, TaskFinished.class);
        assertThat(last.getState()).isEqualTo(TaskState.FAILED);
        assertThat(last.getError()).isEqualTo("boom 3");
        assertThat(assigned(out3).getTaskId()).isEqualTo("t2");

        TaskRecord t1 = store.task("t1");
        assertThat(t1.getState()).isEqualTo(TaskState.FAILED);
        assertThat(t1.getAttempts()).extracting(AttemptRecord::getError).containsExactly("boom 1", "boom 2", "boom 3");
        assertThat(t1.getAttempts()).extracting(AttemptRecord::getOutcome).containsOnly(AttemptOutcome.FAILED);
    }

    @Test
    void retryWaitsItsBackoffOutsideTheLineThenTakesItsPlaceAgain() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned first = assigned(scheduler.submit(task("t1", new RetryPolicy(3, 5_000L, 60_000L, 2.0))));
        scheduler.submit(task("t2"));
        scheduler.submit(at(task("t3"), 1));

        // The failed task waits 5 s outside the line; meanwhile its slot goes to the next in line.
        List<Decision> failed = scheduler.failed(failed(first, "boom", true));
        assertThat(types(failed)).containsExactly("AttemptFailed", "TaskFinished", "TaskWaiting", "AttemptAssigned");
        assertThat(failed.get(1).cause()).isEqualTo("attempt 2 (of at most 3) after a backoff of 5s, at "
                + T0.plusSeconds(5));
        assertThat(assigned(failed).getTaskId()).isEqualTo("t2");
        assertThat(store.task("t1").getTimerAt()).isEqualTo(T0.plusSeconds(5));
        assertThat(store.timers().all()).containsExactly(new TimerQueue.Timer(T0.plusSeconds(5).toEpochMilli(), "t1"));

        assertThat(scheduler.tick(T0.plusMillis(4_999))).isEmpty();
        // Due: it joins its line at its original place, ahead of t3 that was submitted after it.
        List<Decision> due = scheduler.tick(T0.plusSeconds(5));
        assertThat(types(due)).containsExactly("TaskWaiting");
        assertThat(store.timers().all()).isEmpty();
        AttemptAssigned second = assigned(scheduler.succeeded(succeeded(assigned(failed))));
        assertThat(second.getTaskId()).isEqualTo("t1");
        assertThat(second.getAttempt()).isEqualTo(2);
    }

    @Test
    void finishedTasksAreForgottenWhenTheirRetentionEndsAndTheirIdsMaySubmitAgain() {
        TimeRules keepAMinute = new TimeRules(Long.MAX_VALUE / 2, 30_000, 600_000, 300_000, 60_000, 60_000);
        PoolScheduler keeping = new PoolScheduler(POOL, store, keepAMinute);
        keeping.register(worker("w1", 1));
        keeping.succeeded(succeeded(assigned(keeping.submit(task("done")))));
        keeping.submit(task("cancelled"));
        keeping.cancel(cancel("cancelled"));
        assertThat(keeping.nextDue()).isEqualTo(T0.plusSeconds(60));
        keeping.submit(task("waiting", "gpu=a100"));

        assertThat(store.expiries().all()).as("one expiry per finished task, a minute after it finished")
                .containsExactlyInAnyOrder(new TimerQueue.Timer(T0.plusSeconds(60).toEpochMilli(), "done"),
                        new TimerQueue.Timer(T0.plusSeconds(60).toEpochMilli(), "cancelled"));
        assertThat(keeping.tick(T0.plusMillis(59_999))).isEmpty();

        List<Decision> forgotten = keeping.tick(T0.plusSeconds(60));

        assertThat(all(forgotten, TaskForgotten.class)).extracting(TaskForgotten::getTaskId, TaskForgotten::getState,
                TaskForgotten::getFinishedAt).containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("done", TaskState.SUCCEEDED, T0),
                        org.assertj.core.groups.Tuple.tuple("cancelled", TaskState.CANCELLED, T0));
        assertThat(forgotten).allSatisfy(d -> assertThat(d.cause())
                .isEqualTo("kept 1m after it finished (cronoq.task.retention.ms)"));
        assertThat(store.taskIds()).containsExactly("waiting");
        assertThat(store.expiries().all()).isEmpty();
        // A forgotten id is free again: a new task, not a duplicate.
        assertThat(types(keeping.submit(task("done")))).containsExactly("TaskSubmitted", "AttemptAssigned");
        assertThat(store.task("done").getAttempts()).hasSize(1);
    }

    @Test
    void aRetentionOfZeroKeepsFinishedTasksForeverEvenThoseThatFinishedUnderAnother() {
        PoolScheduler keepingAMinute = new PoolScheduler(POOL, store, TimeRules.DEFAULT.withRetentionMs(60_000));
        keepingAMinute.register(worker("w1", 1));
        keepingAMinute.succeeded(succeeded(assigned(keepingAMinute.submit(task("earlier")))));
        PoolScheduler keeping = new PoolScheduler(POOL, store, TimeRules.DEFAULT.withRetentionMs(0));
        keeping.succeeded(succeeded(assigned(keeping.submit(task("done")))));

        assertThat(store.expiries().all()).as("none written under 0; the earlier one stays")
                .containsExactly(new TimerQueue.Timer(T0.plusSeconds(60).toEpochMilli(), "earlier"));
        assertThat(keeping.nextDue()).isNull();
        assertThat(keeping.tick(T0.plus(java.time.Duration.ofDays(3650)))).isEmpty();
        assertThat(store.task("done").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(store.task("earlier").getState()).isEqualTo(TaskState.SUCCEEDED);

        // Set again, the retention forgets the earlier task, saying how long it was kept.
        List<Decision> forgotten = new PoolScheduler(POOL, store, TimeRules.DEFAULT.withRetentionMs(3_600_000))
                .tick(T0.plusSeconds(61));
        assertThat(forgotten).singleElement().satisfies(d -> {
            assertThat(((TaskForgotten) d.event()).getTaskId()).isEqualTo("earlier");
            assertThat(d.cause()).isEqualTo("kept 1m after it finished (cronoq.task.retention.ms)");
        });
    }

    @Test
    void retryPolicyOfTheTaskAndNonRetryableErrorsAreHonoured() {
        scheduler.register(worker("w1", 2));
        AttemptAssigned once = assigned(scheduler.submit(task("once", retries(1))));
        assertThat(only(scheduler.failed(failed(once, "x", true)), TaskFinished.class).getState())
                .isEqualTo(TaskState.FAILED);

        AttemptAssigned fatal = assigned(scheduler.submit(task("fatal")));
        List<Decision> out = scheduler.failed(failed(fatal, "bad input", false));
        assertThat(only(out, TaskFinished.class).getState()).isEqualTo(TaskState.FAILED);
        assertThat(out.get(1).cause()).isEqualTo("the failure is not retryable");
    }

    @Test
    void completionFromNonCurrentAttemptIsRejectedAndFenced() {
        scheduler.register(worker("w1", 1));
        scheduler.register(worker("w2", 1));
        AttemptAssigned first = assigned(scheduler.submit(task("t1", new RetryPolicy(3, 0L, 0L, 2.0))));
        AttemptAssigned second = assigned(scheduler.failed(failed(first, "boom", true)));
        assertThat(second.getWorkerId()).isEqualTo("w2");

        // Attempt 1 reports again: it is not the current attempt.
        List<Decision> stale = scheduler.succeeded(succeeded(first));
        assertThat(types(stale)).containsExactly("InputRejected", "WorkerFenced");
        InputRejected rejected = only(stale, InputRejected.class);
        assertThat(rejected.getCode()).isEqualTo(RejectionCode.FAILED_PRECONDITION);
        assertThat(rejected.getField()).isEqualTo("attempt");
        assertThat(rejected.getReason()).isEqualTo("attempt 1 of task t1 is not current (attempt 2 is)");
        Decision fence = stale.get(1);
        assertThat(fence.worker()).isEqualTo("w1");
        assertThat(fence.journal()).isTrue();
        WorkerFenced f = (WorkerFenced) fence.event();
        assertThat(f.getTaskId()).isEqualTo("t1");
        assertThat(f.getAttempt()).isEqualTo(1);

        // The right attempt under another worker's name, or another generation: fenced too.
        AttemptAssigned impostor = AttemptAssigned.newBuilder(second).setWorkerId("w1").build();
        assertThat(only(scheduler.started(started(impostor)), InputRejected.class).getField()).isEqualTo("workerId");
        AttemptAssigned oldGeneration = AttemptAssigned.newBuilder(second).setGeneration(7L).build();
        List<Decision> wrongGeneration = scheduler.succeeded(succeeded(oldGeneration));
        assertThat(only(wrongGeneration, InputRejected.class).getField()).isEqualTo("generation");
        assertThat(only(wrongGeneration, WorkerFenced.class).getStaleGeneration()).isEqualTo(7L);

        // An unknown task: not found, and the worker must drop its copy.
        AttemptAssigned ghost = AttemptAssigned.newBuilder(second).setTaskId("ghost").build();
        List<Decision> unknown = scheduler.succeeded(succeeded(ghost));
        assertThat(only(unknown, InputRejected.class).getCode()).isEqualTo(RejectionCode.NOT_FOUND);
        assertThat(only(unknown, WorkerFenced.class).getTaskId()).isEqualTo("ghost");

        // None of it changed the task: attempt 2 is still current and succeeds.
        assertThat(types(scheduler.succeeded(succeeded(second)))).containsExactly("AttemptSucceeded", "TaskFinished");
    }

    // ==== workers =================================================================================

    @Test
    void registrationAcceptsWithGenerationGroupAndSlots() {
        WorkerRegistered in = worker("w1", 3, "zone=eu");
        List<Decision> out = scheduler.register(in);

        assertThat(out.get(0)).isEqualTo(Decision.journal(in, null));
        assertThat(only(out, WorkerAccepted.class).getGeneration()).isEqualTo(1);
        Decision accepted = out.get(2);
        assertThat(accepted.journal()).isFalse();
        assertThat(accepted.worker()).isEqualTo("w1");
        RegistrationAccepted r = (RegistrationAccepted) accepted.event();
        assertThat(r.getGeneration()).isEqualTo(1);
        assertThat(r.getGroup()).isEqualTo(labels("zone=eu"));
        assertThat(r.getSlots()).isEqualTo(3);
    }

    @Test
    void reRegistrationFencesOldGenerationAndRequeuesItsAttempts() {
        scheduler.register(worker("w1", 2));
        AttemptAssigned a = assigned(scheduler.submit(task("t1")));

        // The worker restarts with new labels: it moves group, and t1 runs again as attempt 2.
        List<Decision> out = scheduler.register(worker("w1", 2, "zone=eu"));

        assertThat(types(out)).containsExactly("WorkerRegistered", "WorkerFenced", "TaskFinished", "WorkerAccepted",
                "RegistrationAccepted", "AttemptAssigned");
        WorkerFenced fenced = only(out, WorkerFenced.class);
        assertThat(fenced.getStaleGeneration()).isEqualTo(1);
        assertThat(fenced.getCurrentGeneration()).isEqualTo(2);
        assertThat(out.get(1).worker()).isEqualTo("w1");
        TaskFinished lost = only(out, TaskFinished.class);
        assertThat(lost.getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(lost.getState()).isEqualTo(TaskState.WAITING);
        AttemptAssigned again = assigned(out);
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getGeneration()).isEqualTo(2);
        assertThat(again.getGroup()).isEqualTo(labels("zone=eu"));
        assertThat(scheduler.snapshot().groups()).extracting(GroupSnapshot::labels).containsExactly(labels("zone=eu"));

        // The old generation's report is stale.
        assertThat(types(scheduler.succeeded(succeeded(a)))).containsExactly("InputRejected", "WorkerFenced");
    }

    @Test
    void aReplayedEvictionDecidesWhatTheTickThatEvictedDecided() {
        PoolScheduler replaying = new PoolScheduler(POOL, InMemoryPoolStore.copying());
        for (PoolScheduler s : List.of(scheduler, replaying)) {
            s.register(worker("w1", 1));
            s.register(worker("w2", 1));
            s.submit(task("t1"));
            s.heartbeat(heartbeat("w2", 1, T0.plusSeconds(25)));
            s.tick(T0.plusSeconds(1));
        }

        List<Decision> ticked = scheduler.tick(T0.plusSeconds(31));
        List<Decision> replayed = replaying.evict("w1", T0.plusSeconds(31), "evicted: no heartbeat for 30s");

        assertThat(types(ticked)).containsExactly("WorkerRemoved", "WorkerFenced", "TaskFinished", "AttemptAssigned");
        assertThat(replayed).isEqualTo(ticked);
        assertThat(replaying.evict("w1", T0.plusSeconds(32), "again")).as("no longer live: left alone").isEmpty();
        assertThat(replaying.evict("nobody", T0.plusSeconds(32), "unknown")).isEmpty();
    }

    @Test
    void staleGenerationHeartbeatIsFenced() {
        scheduler.register(worker("w1", 2));
        scheduler.register(worker("w1", 2));

        List<Decision> stale = scheduler.heartbeat(heartbeat("w1", 1, T0.plusSeconds(5)));

        Decision d = single(stale);
        assertThat(d.journal()).isTrue();
        assertThat(d.worker()).isEqualTo("w1");
        WorkerFenced f = (WorkerFenced) d.event();
        assertThat(f.getStaleGeneration()).isEqualTo(1);
        assertThat(f.getCurrentGeneration()).isEqualTo(2);
        assertThat(f.getReason()).contains("generation 1").contains("current generation is 2");

        // A current heartbeat is not journaled: no decision, only the worker's record changes.
        assertThat(scheduler.heartbeat(heartbeat("w1", 2, T0.plusSeconds(6)))).isEmpty();
        assertThat(scheduler.worker("w1").getLastHeartbeat()).isEqualTo(T0.plusSeconds(6));

        // Unknown or departed workers are fenced as well.
        assertThat(only(scheduler.heartbeat(heartbeat("ghost", 1, T0)), WorkerFenced.class).getCurrentGeneration())
                .isNull();
        scheduler.leave(left("w1", "shutdown"));
        assertThat(only(scheduler.heartbeat(heartbeat("w1", 2, T0)), WorkerFenced.class).getReason())
                .contains("LEFT");
    }

    @Test
    void aLeaveWhileHoldingAttemptsLosesNoneAndTheReportsReadAfterItCount() {
        scheduler.register(worker("w1", 2));
        AttemptAssigned a1 = assigned(scheduler.submit(task("t1")));
        AttemptAssigned a2 = assigned(scheduler.submit(task("t2")));
        scheduler.submit(task("t3")); // waits: both slots busy

        // The leave is read before the reports its worker sent first: nothing is lost, nothing removed.
        List<Decision> out = scheduler.leave(left("w1", "scale-in"));

        assertThat(types(out)).containsExactly("WorkerLeft", "TaskWaiting");
        assertThat(out.get(0).cause()).isEqualTo("worker w1 generation 1 takes nothing new; the reports of the 2 "
                + "attempt(s) it holds are accepted until " + T0.plusSeconds(5)
                + ": its leave grace of 5s (cronoq.leave.grace.ms)");
        assertThat(only(out, TaskWaiting.class).getReason()).isEqualTo("0/1 workers can run it: 1 is draining");
        // It reads as leaving: DRAINING (out of capacity) with the time its leave was heard.
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.DRAINING);
        assertThat(scheduler.worker("w1").getLeftAt()).isEqualTo(T0);
        assertThat(scheduler.worker("w1").getLeaveReason()).isEqualTo("scale-in");
        assertThat(scheduler.worker("w1").getRunning()).hasSize(2);
        assertThat(scheduler.snapshot().capacity()).isZero();
        assertThat(scheduler.snapshot().drainingBusy()).isEqualTo(2);
        assertThat(scheduler.nextDue()).as("the grace's end comes before the leases'").isEqualTo(T0.plusSeconds(5));
        // It takes nothing new.
        assertThat(workersOf(scheduler.submit(task("t4")))).isEmpty();

        List<Decision> first = scheduler.succeeded(succeeded(a1));
        assertThat(types(first)).containsExactly("AttemptSucceeded", "TaskFinished");
        assertThat(store.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        // Its heartbeat is taken like any live worker's (no fence that would abort the attempt left),
        // and a second leave changes nothing.
        assertThat(scheduler.heartbeat(heartbeat("w1", 1, T0.plusSeconds(1)))).isEmpty();
        assertThat(only(scheduler.leave(left("w1", "again")), InputRejected.class).getReason())
                .isEqualTo("worker w1 already left at " + T0 + "; the reports of its 1 attempt(s) are awaited");

        // The report that ends its last attempt removes it, with its leave's reason.
        List<Decision> last = scheduler.succeeded(succeeded(a2));
        assertThat(types(last)).containsExactly("AttemptSucceeded", "TaskFinished", "WorkerRemoved", "TaskWaiting");
        WorkerRemoved removed = only(last, WorkerRemoved.class);
        assertThat(removed.getState()).isEqualTo(WorkerState.LEFT);
        assertThat(removed.getGeneration()).isEqualTo(1);
        assertThat(removed.getReason()).isEqualTo("scale-in");
        assertThat(last.get(2).cause()).isEqualTo("its last attempt ended within its leave grace of 5s "
                + "(cronoq.leave.grace.ms)");
        assertThat(store.task("t2").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(store.task("t1").getAttempts()).hasSize(1);
        assertThat(store.task("t2").getAttempts()).hasSize(1);
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
        assertThat(scheduler.snapshot().groups()).isEmpty();
        assertThat(all(scheduler.tick(T0.plusSeconds(6)), TaskFinished.class)).as("nothing left to lose").isEmpty();
    }

    @Test
    void aLeaveGraceThatEndsLosesAndRequeuesWhatTheWorkerStillHolds() {
        scheduler.register(worker("w1", 2, "zone=eu"));
        AttemptAssigned a1 = assigned(scheduler.submit(task("t1")));
        AttemptAssigned a2 = assigned(scheduler.submit(task("t2")));
        scheduler.register(worker("w2", 1));
        assertThat(types(scheduler.leave(left("w1", "scale-in")))).containsExactly("WorkerLeft");
        scheduler.tick(T0.plusSeconds(1));

        assertThat(scheduler.tick(T0.plusMillis(4_999))).as("still within the grace").isEmpty();
        List<Decision> out = scheduler.tick(T0.plusSeconds(5));

        assertThat(types(out)).containsExactly("WorkerRemoved", "TaskFinished", "TaskFinished", "AttemptAssigned",
                "TaskWaiting");
        WorkerRemoved removed = only(out, WorkerRemoved.class);
        assertThat(removed.getState()).isEqualTo(WorkerState.LEFT);
        assertThat(removed.getReason()).isEqualTo("scale-in");
        assertThat(out.get(0).cause()).isEqualTo("its leave grace of 5s (cronoq.leave.grace.ms) ended with 2 "
                + "attempt(s) unreported");
        assertThat(all(out, TaskFinished.class)).extracting(TaskFinished::getOutcome)
                .containsOnly(AttemptOutcome.LOST);
        assertThat(out.get(1).cause()).isEqualTo("worker w1 generation 1 left and did not report within its leave "
                + "grace of 5s (cronoq.leave.grace.ms)");
        AttemptAssigned again = assigned(out);
        assertThat(again.getTaskId()).isEqualTo(a1.getTaskId());
        assertThat(again.getWorkerId()).isEqualTo("w2");
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(only(out, TaskWaiting.class).getTaskId()).isEqualTo(a2.getTaskId());

        // Its group is gone with it; the worker's record says LEFT; a report after the grace is fenced.
        assertThat(scheduler.snapshot().groups()).extracting(GroupSnapshot::labels).containsExactly(Map.of());
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
        assertThat(scheduler.worker("w1").getRunning()).isEmpty();
        assertThat(types(scheduler.succeeded(succeeded(a2)))).containsExactly("InputRejected", "WorkerFenced");
        // Coming back starts a new generation.
        assertThat(only(scheduler.register(worker("w1", 2)), WorkerAccepted.class).getGeneration()).isEqualTo(2);
    }

    @Test
    void aLeaveHoldingNothingRemovesTheWorkerAtOnce() {
        scheduler.register(worker("w1", 2));
        scheduler.succeeded(succeeded(assigned(scheduler.submit(task("t1")))));

        List<Decision> out = scheduler.leave(left("w1", "scale-in"));

        assertThat(types(out)).containsExactly("WorkerLeft", "WorkerRemoved");
        assertThat(only(out, WorkerRemoved.class).getReason()).isEqualTo("scale-in");
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
        assertThat(scheduler.worker("w1").getLeftAt()).as("when its leave was heard").isEqualTo(T0);
        assertThat(scheduler.snapshot().groups()).isEmpty();
        assertThat(scheduler.nextDue()).as("only t1's retention").isEqualTo(T0.plus(java.time.Duration.ofDays(7)));
    }

    @Test
    void withAGraceOfZeroALeaveLosesWhatItsWorkerHoldsAtOnce() {
        PoolScheduler impatient = new PoolScheduler(POOL, store, TimeRules.DEFAULT.withLeaveGraceMs(0));
        impatient.register(worker("w1", 2, "zone=eu"));
        AttemptAssigned a1 = assigned(impatient.submit(task("t1")));
        impatient.submit(task("t2"));
        impatient.register(worker("w2", 1));

        List<Decision> out = impatient.leave(left("w1", "scale-in"));

        assertThat(types(out)).containsExactly("WorkerLeft", "WorkerRemoved", "TaskFinished", "TaskFinished",
                "AttemptAssigned", "TaskWaiting");
        assertThat(all(out, TaskFinished.class)).extracting(TaskFinished::getOutcome)
                .containsOnly(AttemptOutcome.LOST);
        assertThat(out.get(2).cause()).isEqualTo("worker w1 generation 1 left");
        assertThat(assigned(out).getTaskId()).isEqualTo(a1.getTaskId());
        assertThat(impatient.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
    }

    @Test
    void theLastAttemptOfALeavingWorkerEndingAnyOtherWayRemovesItToo() {
        scheduler.register(worker("w1", 1));
        assigned(scheduler.submit(task("t1")));
        scheduler.leave(left("w1", null));

        List<Decision> out = scheduler.cancel(cancel("t1"));

        assertThat(types(out)).containsExactly("TaskCancelRequested", "AttemptRevoked", "TaskCancelled",
                "WorkerRemoved");
        assertThat(only(out, WorkerRemoved.class).getReason()).as("a leave without reason").isEqualTo("left");
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
        assertThat(scheduler.nextDue()).as("no grace pending").isEqualTo(T0.plus(java.time.Duration.ofDays(7)));
    }

    @Test
    void aRegistrationDuringTheGraceReplacesTheGenerationAndLosesItsAttempts() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned a1 = assigned(scheduler.submit(task("t1")));
        scheduler.leave(left("w1", "restart"));

        List<Decision> out = scheduler.register(worker("w1", 1));

        assertThat(types(out)).containsExactly("WorkerRegistered", "WorkerFenced", "TaskFinished", "WorkerAccepted",
                "RegistrationAccepted", "AttemptAssigned");
        assertThat(only(out, TaskFinished.class).getOutcome()).isEqualTo(AttemptOutcome.LOST);
        AttemptAssigned again = assigned(out);
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getGeneration()).isEqualTo(2);
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.ACTIVE);
        assertThat(scheduler.worker("w1").getLeftAt()).as("the new generation is not leaving").isNull();
        // The grace ended with the generation: its end decides nothing, and its old report is stale.
        assertThat(scheduler.nextDue()).as("attempt 2's lease").isEqualTo(T0.plusSeconds(30));
        assertThat(scheduler.tick(T0.plusSeconds(5))).isEmpty();
        assertThat(types(scheduler.succeeded(succeeded(a1)))).containsExactly("InputRejected", "WorkerFenced");
        assertThat(types(scheduler.succeeded(succeeded(again)))).containsExactly("AttemptSucceeded", "TaskFinished");
    }

    @Test
    void aLeavingWorkerSilentForTheHeartbeatTimeoutIsEvictedAndItsLeaveCountsAsWordFromIt() {
        PoolScheduler patient = new PoolScheduler(POOL, store, TimeRules.DEFAULT.withLeaveGraceMs(60_000));
        patient.register(worker("w1", 1));
        TaskSubmitted untimed = task("t1");
        untimed.setTimeoutMs(null); // no lease to end meanwhile
        patient.submit(untimed);
        patient.tick(T0.plusSeconds(1));
        patient.leave(new io.cronoq.events.WorkerLeft("w1", POOL, null, "scale-in", T0.plusSeconds(10)));

        assertThat(patient.tick(T0.plusSeconds(39))).as("silent 29 s since its leave").isEmpty();
        List<Decision> out = patient.tick(T0.plusSeconds(40));

        assertThat(types(out)).containsExactly("WorkerRemoved", "WorkerFenced", "TaskFinished", "TaskWaiting");
        assertThat(only(out, WorkerRemoved.class).getState()).isEqualTo(WorkerState.EVICTED);
        assertThat(only(out, TaskFinished.class).getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(patient.worker("w1").getState()).isEqualTo(WorkerState.EVICTED);
        assertThat(patient.tick(T0.plusSeconds(70))).as("its grace ended with it").isEmpty();
    }

    @Test
    void aLeaveGraceSurvivesARestart() {
        scheduler.register(worker("w1", 1));
        AttemptAssigned a1 = assigned(scheduler.submit(task("t1")));
        scheduler.leave(left("w1", "scale-in"));

        PoolScheduler restarted = new PoolScheduler(POOL, store);

        assertThat(store.workers()).singleElement().satisfies(stored -> {
            assertThat(stored.getLeftAt()).isEqualTo(T0);
            assertThat(stored.getLeaveReason()).isEqualTo("scale-in");
        });
        assertThat(restarted.nextDue()).isEqualTo(T0.plusSeconds(5));
        assertThat(restarted.worker("w1").getState()).isEqualTo(WorkerState.DRAINING);
        assertThat(types(restarted.succeeded(succeeded(a1)))).containsExactly("AttemptSucceeded", "TaskFinished",
                "WorkerRemoved");
        assertThat(restarted.worker("w1").getState()).isEqualTo(WorkerState.LEFT);
    }

    @Test
    void drainingWorkerReceivesNothingNew() {
        scheduler.register(worker("w1", 2));
        scheduler.register(worker("w2", 2));
        AttemptAssigned onW1 = assigned(scheduler.submit(task("t1")));
        assertThat(onW1.getWorkerId()).isEqualTo("w1");

        assertThat(types(scheduler.drain(drain("w1")))).containsExactly("WorkerDraining");
        PoolSnapshot snapshot = scheduler.snapshot();
        assertThat(snapshot.capacity()).as("draining slots are out of capacity").isEqualTo(2);
        assertThat(snapshot.busy()).isZero();
        assertThat(snapshot.drainingBusy()).isEqualTo(1);

        assertThat(workersOf(scheduler.submit(task("t2")))).containsExactly("w2");
        assertThat(workersOf(scheduler.submit(task("t3")))).containsExactly("w2");
        assertThat(workersOf(scheduler.submit(task("t4")))).isEmpty();
        // Its attempt finishes normally; the slot it frees is not offered.
        List<Decision> done = scheduler.succeeded(succeeded(onW1));
        assertThat(types(done)).containsExactly("AttemptSucceeded", "TaskFinished");
        assertThat(scheduler.snapshot().drainingBusy()).isZero();
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.DRAINING);
    }

    @Test
    void drainAndLeaveOfUnknownOrStaleWorkerAreRejected() {
        assertThat(only(scheduler.drain(drain("ghost")), InputRejected.class).getCode())
                .isEqualTo(RejectionCode.NOT_FOUND);
        scheduler.register(worker("w1", 1));
        scheduler.register(worker("w1", 1));
        List<Decision> stale = scheduler.leave(new io.cronoq.events.WorkerLeft("w1", POOL, 1L, null, T0));
        assertThat(types(stale)).containsExactly("InputRejected", "WorkerFenced");
        assertThat(scheduler.worker("w1").getState()).isEqualTo(WorkerState.ACTIVE);
        scheduler.leave(left("w1", null));
        assertThat(only(scheduler.leave(left("w1", null)), InputRejected.class).getReason())
                .isEqualTo("worker w1 already LEFT");
    }

    @Test
    void snapshotReportsGroupCapacityAndBusy() {
        scheduler.register(worker("plain-1", 2));
        scheduler.register(worker("plain-2", 3));
        scheduler.register(worker("gpu-1", 4, "gpu=a100"));
        scheduler.submit(task("t1"));
        scheduler.submit(task("t2", "gpu=a100"));
        scheduler.submit(task("t3", "gpu=a100"));
        scheduler.submit(task("t4", "zone=eu"));

        PoolSnapshot s = scheduler.snapshot();

        assertThat(s.pool()).isEqualTo(POOL);
        assertThat(s.capacity()).isEqualTo(9);
        assertThat(s.busy()).isEqualTo(3);
        assertThat(s.free()).isEqualTo(6);
        assertThat(s.waiting()).isEqualTo(1);
        assertThat(s.groups()).containsExactly(
                new GroupSnapshot(Map.of(), 5, 1, 2, 0, 0),
                new GroupSnapshot(labels("gpu=a100"), 4, 2, 1, 0, 0));
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

    private static Decision single(List<Decision> decisions) {
        assertThat(decisions).hasSize(1);
        return decisions.get(0);
    }

    private static TaskSubmitted at(TaskSubmitted task, long seconds) {
        task.setSubmittedAt(T0.plusSeconds(seconds));
        return task;
    }
}
