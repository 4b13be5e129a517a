package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.PoolSchedulerTest.at;

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

/** {@link PoolScheduler}: the worker's reports about an attempt (started, succeeded, failed) and what they free. */
class PoolSchedulerReportsTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);

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
}
