package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.PoolSchedulerTest.single;

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

/** {@link PoolScheduler}: the worker inputs (register, heartbeat, drain, leave) and a worker's going away. */
class PoolSchedulerWorkersTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);

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
}
