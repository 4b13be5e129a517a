package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.topology.JournalEntries.only;
import static io.cronoq.scheduler.topology.JournalEntries.types;
import static io.cronoq.scheduler.fixtures.Events.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.Priority;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each time rule through the whole topology, with the wall clock under the test's control (the
 * driver's clock starts at {@code T0} and moves only when the test advances it; the scheduler ticks
 * every second). Inputs carry their own times, as workers and producers would.
 */
class TimeRulesTopologyTest {

    private static final String POOL = "p";
    private static final Map<String, String> GPU = Map.of("gpu", "a100");
    /** Settings where nobody is evicted, for the tests that are not about heartbeats. */
    private static final Map<String, String> PATIENT = Map.of(SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "86400000");

    private SchedulerDriver scheduler;
    private Instant clock = T0;

    @AfterEach
    void close() {
        scheduler.close();
    }

    // ==== workers =================================================================================

    @Test
    void aSilentWorkerIsEvictedItsAttemptRunsElsewhereAndItsLateCompletionIsFenced() {
        scheduler = new SchedulerDriver(Map.of(), T0); // heartbeat timeout: the default 30 s
        scheduler.send(register("w1", 1, T0));
        scheduler.send(task("t1", T0));
        scheduler.send(register("w2", 1, T0.plusSeconds(5)));
        assertThat(assigned(scheduler.journal())).extracting(AttemptAssigned::getWorkerId).containsExactly("w1");
        scheduler.assignments();

        advanceTo(T0.plusSeconds(1)); // the first tick: the scheduler counts silence from here at the earliest
        advanceTo(T0.plusSeconds(25));
        scheduler.send(heartbeat("w2", 1, T0.plusSeconds(25)));
        advanceTo(T0.plusSeconds(30)); // w1 silent for 29 s since the first tick: not yet
        assertThat(scheduler.journal()).isEmpty();

        advanceTo(T0.plusSeconds(31));
        List<JournalEntry> eviction = scheduler.journal();
        assertThat(types(eviction)).containsExactly("WorkerRemoved", "WorkerFenced", "TaskFinished", "AttemptAssigned");
        WorkerRemoved removed = (WorkerRemoved) eviction.get(0).getEvent();
        assertThat(removed.getState()).isEqualTo(WorkerState.EVICTED);
        assertThat(removed.getReason()).isEqualTo("evicted: no heartbeat for 30s");
        assertThat(removed.getGeneration()).as("an eviction bumps the generation").isEqualTo(2L);
        assertThat(eviction.get(0).getAt()).isEqualTo(T0.plusSeconds(31));
        TaskFinished lost = (TaskFinished) eviction.get(2).getEvent();
        assertThat(lost.getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(lost.getState()).isEqualTo(TaskState.WAITING);
        assertThat(eviction.get(2).getCause()).isEqualTo("worker w1 evicted: no heartbeat for 30s");
        AttemptAssigned second = (AttemptAssigned) eviction.get(3).getEvent();
        assertThat(second.getAttempt()).isEqualTo(2);
        assertThat(second.getWorkerId()).isEqualTo("w2");
        List<KeyValue<String, SpecificRecord>> sent = scheduler.assignments();
        assertThat(sent).extracting(kv -> kv.key).containsExactly("w1", "w2");
        assertThat(((WorkerFenced) sent.get(0).value).getStaleGeneration()).isEqualTo(1L);
        assertThat(scheduler.worker(POOL, "w1").getState()).isEqualTo(WorkerState.EVICTED);
        assertThat(scheduler.worker(POOL, "w1").getRunning()).isEmpty();

        // The killed generation's late completion: rejected, journaled, and the worker told.
        scheduler.send(succeeded("t1", 1, "w1", 1, T0.plusSeconds(32)));
        List<JournalEntry> late = scheduler.journal();
        assertThat(types(late)).containsExactly("InputRejected", "WorkerFenced");
        assertThat(((InputRejected) late.get(0).getEvent()).getReason())
                .isEqualTo("attempt 1 of task t1 is not current (attempt 2 is)");
        assertThat(scheduler.assignments()).extracting(kv -> kv.key).containsExactly("w1");
        // So is its heartbeat; and when it registers again it is a new generation.
        scheduler.send(heartbeat("w1", 1, T0.plusSeconds(33)));
        assertThat(types(scheduler.journal())).containsExactly("WorkerFenced");
        scheduler.send(register("w1", 1, T0.plusSeconds(34)));
        assertThat(scheduler.worker(POOL, "w1").getGeneration()).isEqualTo(3L);

        scheduler.send(succeeded("t1", 2, "w2", 1, T0.plusSeconds(35)));
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.task("t1").getAttempts()).extracting(AttemptRecord::getOutcome)
                .containsExactly(AttemptOutcome.LOST, AttemptOutcome.SUCCEEDED);
    }

    @Test
    void silenceIsCountedOnTheSchedulersClockNotTheWorkers() {
        scheduler = new SchedulerDriver(Map.of(), T0); // heartbeat timeout: the default 30 s
        Instant hourBehind = T0.minus(Duration.ofHours(1));
        scheduler.send(register("slow-clock", 1, hourBehind));
        scheduler.send(register("fast-clock", 1, T0.plus(Duration.ofHours(1))));
        scheduler.journal();
        advanceTo(T0.plusSeconds(1));

        advanceTo(T0.plusSeconds(20));
        // Sent "an hour ago" by its clock, heard now: it counts as a heartbeat of now.
        scheduler.send(heartbeat("slow-clock", 1, hourBehind.plusSeconds(20)));
        advanceTo(T0.plusSeconds(31));

        // The worker whose clock is an hour ahead was heard last at its registration: silent 30 s.
        assertThat(scheduler.journal()).filteredOn(e -> e.getEvent() instanceof WorkerRemoved)
                .extracting(e -> ((WorkerRemoved) e.getEvent()).getWorkerId()).containsExactly("fast-clock");
        assertThat(scheduler.worker(POOL, "slow-clock").getState()).isEqualTo(WorkerState.ACTIVE);
        assertThat(scheduler.worker(POOL, "slow-clock").getLastHeartbeat()).isEqualTo(T0.plusSeconds(20));
    }

    // ==== attempts ================================================================================

    @Test
    void anAttemptPastItsLeaseIsRevokedAndRetriedThenTheTaskFailsForGood() {
        scheduler = new SchedulerDriver(PATIENT, T0);
        scheduler.send(register("w1", 1, T0));
        TaskSubmitted t = task("t1", T0);
        t.setTimeoutMs(10_000L);
        t.setRetry(new RetryPolicy(2, 2_000L, 60_000L, 2.0));
        scheduler.send(t);
        scheduler.send(started("t1", 1, "w1", 1, T0.plusSeconds(1)));
        scheduler.journal();
        scheduler.assignments();

        advanceTo(T0.plusSeconds(10)); // the lease runs from the start: 10 s after T0 + 1 s
        assertThat(scheduler.journal()).isEmpty();
        advanceTo(T0.plusSeconds(11));
        List<JournalEntry> revoked = scheduler.journal();
        assertThat(types(revoked)).containsExactly("AttemptRevoked", "TaskFinished", "TaskWaiting");
        assertThat(((AttemptRevoked) revoked.get(0).getEvent()).getReason())
                .isEqualTo("lease expired: attempt 1 ran longer than its timeout of 10s");
        assertThat(((TaskFinished) revoked.get(1).getEvent()).getOutcome()).isEqualTo(AttemptOutcome.REVOKED);
        assertThat(revoked.get(1).getCause()).isEqualTo("attempt 2 (of at most 2) after a backoff of 2s, at "
                + T0.plusSeconds(13));
        assertThat(scheduler.assignments()).extracting(kv -> kv.key, kv -> kv.value.getClass().getSimpleName())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("w1", "AttemptRevoked"));

        advanceTo(T0.plusSeconds(12)); // in its backoff, though w1 is free
        assertThat(scheduler.journal()).isEmpty();
        advanceTo(T0.plusSeconds(13));
        assertThat(assigned(scheduler.journal())).extracting(AttemptAssigned::getAttempt).containsExactly(2);

        // Never started: the lease runs from the assignment. The second expiry is the last attempt.
        advanceTo(T0.plusSeconds(23));
        List<JournalEntry> last = scheduler.journal();
        assertThat(types(last)).containsExactly("AttemptRevoked", "TaskFinished");
        assertThat(((TaskFinished) last.get(1).getEvent()).getState()).isEqualTo(TaskState.FAILED);
        assertThat(last.get(1).getCause()).isEqualTo("no attempts left (2 of 2 ended without success)");
        assertThat(scheduler.task("t1").getAttempts()).extracting(AttemptRecord::getOutcome)
                .containsExactly(AttemptOutcome.REVOKED, AttemptOutcome.REVOKED);
    }

    @Test
    void aFailedAttemptIsRetriedAfterAGrowingBackoffThenTheTaskFailsWithEveryError() {
        scheduler = new SchedulerDriver(PATIENT, T0);
        scheduler.send(register("w1", 1, T0));
        TaskSubmitted t = task("t1", T0);
        t.setRetry(new RetryPolicy(3, 1_000L, 60_000L, 2.0));
        scheduler.send(t);
        advanceTo(T0.plusMillis(500));

        scheduler.send(failed("t1", 1, "w1", T0.plusMillis(500), "error 1"));
        assertThat(scheduler.journal()).extracting(JournalEntry::getCause)
                .contains("attempt 2 (of at most 3) after a backoff of 1s, at " + T0.plusMillis(1_500));
        advanceTo(T0.plusMillis(1_500));
        assertThat(assigned(scheduler.journal())).extracting(AttemptAssigned::getAttempt).containsExactly(2);

        scheduler.send(failed("t1", 2, "w1", T0.plusMillis(1_600), "error 2"));
        assertThat(scheduler.journal()).extracting(JournalEntry::getCause)
                .contains("attempt 3 (of at most 3) after a backoff of 2s, at " + T0.plusMillis(3_600));
        advanceTo(T0.plusMillis(3_500)); // a tick, before it is due
        assertThat(assigned(scheduler.journal())).isEmpty();
        // Ticks come every second: the retry is due at 3.6 s and placed by the first tick after that.
        advanceTo(T0.plusMillis(4_500));
        List<AttemptAssigned> third = assigned(scheduler.journal());
        assertThat(third).extracting(AttemptAssigned::getAttempt).containsExactly(3);
        assertThat(third.get(0).getAssignedAt()).isAfterOrEqualTo(T0.plusMillis(3_600));

        scheduler.send(failed("t1", 3, "w1", T0.plusSeconds(4), "error 3"));
        List<JournalEntry> end = scheduler.journal();
        TaskFinished finished = only(end, TaskFinished.class);
        assertThat(finished.getState()).isEqualTo(TaskState.FAILED);
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.FAILED);
        assertThat(scheduler.task("t1").getAttempts()).extracting(AttemptRecord::getError)
                .containsExactly("error 1", "error 2", "error 3");
    }

    @Test
    void aTaskCanBeCancelledInEveryStateAndARunningAttemptIsRevoked() {
        scheduler = new SchedulerDriver(PATIENT, T0);
        scheduler.send(register("w1", 2, T0));
        scheduler.send(task("assigned", T0));
        scheduler.send(task("running", T0));
        scheduler.send(started("running", 1, "w1", 1, T0));
        scheduler.send(task("in-line", T0, GPU)); // no GPU worker: waits in its line
        TaskSubmitted delayed = task("delayed", T0);
        delayed.setNotBefore(T0.plusSeconds(60));
        scheduler.send(delayed);
        scheduler.send(task("done", T0));
        assertThat(scheduler.index(POOL).pendingTimers()).hasSize(1);
        scheduler.journal();
        scheduler.assignments();

        for (String id : List.of("in-line", "delayed", "assigned", "running")) {
            TaskState before = scheduler.task(id).getState();
            scheduler.send(cancel(id, T0.plusSeconds(1)));
            TaskCancelled cancelled = only(scheduler.journal(), TaskCancelled.class);
            assertThat(cancelled.getPreviousState()).as(id).isEqualTo(before);
            assertThat(scheduler.task(id).getState()).as(id).isEqualTo(TaskState.CANCELLED);
        }
        assertThat(scheduler.index(POOL).pendingTimers()).as("the delayed task's timer is gone").isEmpty();
        assertThat(scheduler.index(POOL).lines()).isEmpty();
        // Each revoked attempt was sent to its worker, whose slot went to the next task ("done").
        assertThat(scheduler.assignments()).extracting(kv -> kv.value.getClass().getSimpleName())
                .containsExactly("AttemptRevoked", "AttemptAssigned", "AttemptRevoked");

        scheduler.send(succeeded("done", 1, "w1", 1, T0.plusSeconds(2)));
        scheduler.send(cancel("done", T0.plusSeconds(3)));
        InputRejected rejected = only(scheduler.journal(), InputRejected.class);
        assertThat(rejected.getReason()).contains("already SUCCEEDED");
    }

    // ==== urgency and time ========================================================================

    @Test
    void aHigherPriorityGoesFirstButALowerOneThatWaitedLongEnoughStaysAhead() {
        scheduler = new SchedulerDriver(PATIENT, T0); // one priority class is worth 5 minutes
        scheduler.send(register("w1", 1, T0));
        scheduler.send(task("busy", T0.minus(Duration.ofMinutes(30))));
        scheduler.send(task("low-old", T0.minus(Duration.ofMinutes(20)), Priority.LOW));
        scheduler.send(task("normal", T0, Priority.NORMAL));
        scheduler.send(task("high", T0.plus(Duration.ofMinutes(1)), Priority.HIGH));
        scheduler.send(task("normal-later", T0.plus(Duration.ofMinutes(10)), Priority.NORMAL));
        scheduler.journal();

        // Ranks: low-old T0-20m; high T0+1m-2 steps = T0-9m; normal T0-5m; normal-later T0+5m.
        assertThat(runInTurn("busy", 4)).containsExactly("low-old", "high", "normal", "normal-later");
    }

    @Test
    void aNearDeadlineMovesATaskAheadAndAPassedOneStillRunsJournaledAsLate() {
        scheduler = new SchedulerDriver(PATIENT, T0); // deadlines are near 10 minutes ahead
        scheduler.send(register("w1", 1, T0));
        scheduler.send(task("busy", T0));
        scheduler.send(task("plain", T0));
        TaskSubmitted soon = task("deadline", T0.plusSeconds(1));
        soon.setDeadline(T0.plus(Duration.ofMinutes(30)));
        scheduler.send(soon);
        advanceTo(T0.plusSeconds(1));
        assertThat(scheduler.task("deadline").getTimerAt()).isEqualTo(T0.plus(Duration.ofMinutes(20)));
        scheduler.journal();

        advanceTo(T0.plus(Duration.ofMinutes(20)));
        TaskWaiting ahead = only(scheduler.journal(), TaskWaiting.class);
        assertThat(ahead.getTaskId()).isEqualTo("deadline");
        assertThat(ahead.getReason()).contains("moved ahead of the tasks without a near deadline");

        // Already near when submitted, and past by the time a slot frees: it runs, late.
        TaskSubmitted overdue = task("overdue", T0.plus(Duration.ofMinutes(20)));
        overdue.setDeadline(T0.plus(Duration.ofMinutes(21)));
        scheduler.send(overdue);
        clock = T0.plus(Duration.ofMinutes(25));
        assertThat(runInTurn("busy", 3)).containsExactly("overdue", "deadline", "plain");
        JournalEntry lateAssignment = assignmentOf("overdue");
        assertThat(lateAssignment.getCause()).isEqualTo("late: assigned 4m1s after its deadline "
                + T0.plus(Duration.ofMinutes(21)));
    }

    @Test
    void aDelayedTaskWaitsOutsideItsLineUntilItsNotBefore() {
        scheduler = new SchedulerDriver(PATIENT, T0);
        scheduler.send(register("w1", 1, T0));
        TaskSubmitted later = task("later", T0);
        later.setNotBefore(T0.plusSeconds(60));
        scheduler.send(later);
        TaskWaiting waiting = only(scheduler.journal(), TaskWaiting.class);
        assertThat(waiting.getReason()).isEqualTo("not before " + T0.plusSeconds(60));
        assertThat(scheduler.task("later").getState()).isEqualTo(TaskState.WAITING);

        advanceTo(T0.plusSeconds(59));
        assertThat(assigned(scheduler.journal())).isEmpty();
        advanceTo(T0.plusSeconds(60));
        List<JournalEntry> due = scheduler.journal();
        assertThat(assigned(due)).extracting(AttemptAssigned::getTaskId).containsExactly("later");
        assertThat(due.get(0).getAt()).isEqualTo(T0.plusSeconds(60));
    }

    @Test
    void aFixedStartGetsTheNextFreedSlotOfItsGroupAheadOfABacklogAndStartsOnTime() {
        scheduler = new SchedulerDriver(PATIENT, T0); // slots are held 30 s ahead of a fixed start
        scheduler.send(register("gpu-1", 2, T0, GPU));
        scheduler.send(register("cpu-1", 4, T0)); // free all along, but it lacks the label
        for (String id : List.of("long-1", "long-2", "backlog-1", "backlog-2", "backlog-3")) {
            scheduler.send(task(id, T0, GPU));
        }
        Instant startAt = T0.plus(Duration.ofMinutes(5));
        TaskSubmitted fixed = task("fixed", T0.plusSeconds(1), GPU);
        fixed.setStartAt(startAt);
        fixed.setStartToleranceMs(10_000L);
        scheduler.send(fixed);
        assertThat(scheduler.journal()).extracting(JournalEntry::getEvent).filteredOn(TaskWaiting.class::isInstance)
                .map(e -> (TaskWaiting) e).filteredOn(w -> w.getTaskId().equals("fixed"))
                .extracting(TaskWaiting::getReason).containsExactly("fixed start at " + startAt
                        + ": the next matching slot is held for it from " + startAt.minusSeconds(30));
        scheduler.assignments();

        advanceTo(startAt.minusSeconds(31));
        assertThat(scheduler.journal()).isEmpty();
        advanceTo(startAt.minusSeconds(30)); // its reservation begins: first in its line, no slot free yet
        assertThat(only(scheduler.journal(), TaskWaiting.class).getTaskId()).isEqualTo("fixed");

        // A slot of the saturated group frees: it is held for the fixed start, not given to the backlog.
        scheduler.send(succeeded("long-1", 1, "gpu-1", 1, startAt.minusSeconds(20)));
        JournalEntry held = assignmentOf("fixed");
        AttemptAssigned hold = (AttemptAssigned) held.getEvent();
        assertThat(hold.getWorkerId()).isEqualTo("gpu-1");
        assertThat(hold.getStartAt()).isEqualTo(startAt);
        assertThat(held.getCause()).isEqualTo("fixed start at " + startAt + ": the slot is held for it until then");
        assertThat(scheduler.task("backlog-1").getState()).isEqualTo(TaskState.WAITING);

        scheduler.send(started("fixed", 1, "gpu-1", 1, startAt.plusSeconds(2)));
        JournalEntry start = scheduler.journal().stream()
                .filter(e -> e.getEvent() instanceof AttemptStarted).findFirst().orElseThrow();
        assertThat(start.getCause()).isEqualTo("fixed start at " + startAt
                + ": started on time (2s after, within its tolerance of 10s)");
    }

    // ==== helpers =================================================================================

    /** Completes the running task, then each task that takes its slot, and returns them in the order they ran. */
    private List<String> runInTurn(String running, int count) {
        List<String> order = new ArrayList<>();
        String current = running;
        for (int i = 0; i <= count; i++) {
            clock = clock.plusSeconds(1);
            scheduler.send(succeeded(current, 1, "w1", 1, clock));
            List<AttemptAssigned> next = assigned(scheduler.journal());
            if (next.isEmpty()) {
                break;
            }
            current = next.get(0).getTaskId();
            order.add(current);
        }
        return order;
    }

    private final List<JournalEntry> seen = new ArrayList<>();

    private JournalEntry assignmentOf(String taskId) {
        seen.addAll(scheduler.journal());
        return seen.stream().filter(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().equals(taskId))
                .findFirst().orElseThrow(() -> new AssertionError("no assignment of " + taskId));
    }

    // ==== retention =================================================================================

    @Test
    void aFinishedTaskIsForgottenWhenItsRetentionEndsAndTheJournalSaysSo() {
        scheduler = new SchedulerDriver(Map.of(SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "86400000",
                SchedulerConfig.TASK_RETENTION_MS.name(), "60000"), T0);
        scheduler.send(register("w1", 1, T0));
        scheduler.send(task("t1", T0));
        scheduler.send(started("t1", 1, "w1", 1, T0.plusSeconds(1)));
        scheduler.send(succeeded("t1", 1, "w1", 1, T0.plusSeconds(2)));
        JournalFold fold = new JournalFold();
        List<JournalEntry> first = scheduler.journal();
        seen.addAll(first);
        fold.applyAll(first);
        assertThat(fold.tasks()).containsOnlyKeys(POOL + "/t1");
        assertThat(scheduler.index(POOL).pendingExpiries()).hasSize(1);

        advanceTo(T0.plusSeconds(61)); // 59 s after it finished: kept
        assertThat(scheduler.journal()).isEmpty();
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        advanceTo(T0.plusSeconds(62));

        List<JournalEntry> forgotten = scheduler.journal();
        TaskForgotten f = only(forgotten, TaskForgotten.class);
        assertThat(f.getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(f.getFinishedAt()).isEqualTo(T0.plusSeconds(2));
        assertThat(forgotten.get(0).getCause()).isEqualTo("kept 1m after it finished (cronoq.task.retention.ms)");
        assertThat(scheduler.task("t1")).isNull();
        assertThat(scheduler.index(POOL).pendingExpiries()).isEmpty();
        fold.applyAll(forgotten);
        assertThat(fold.tasks()).as("the journal folds to what the stores hold").isEmpty();
        // The id is free again: a new task, not a duplicate.
        scheduler.send(task("t1", T0.plusSeconds(63)));
        List<JournalEntry> again = scheduler.journal();
        assertThat(types(again)).containsExactly("TaskSubmitted", "AttemptAssigned");
        // A fold keeping history (for timelines) keeps both: the forgotten one under a key of its own.
        JournalFold history = JournalFold.keepingHistory();
        history.applyAll(seen);
        history.applyAll(forgotten);
        history.applyAll(again);
        assertThat(history.tasks().values()).extracting(JournalFold.Task::taskId, JournalFold.Task::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("t1", TaskState.SUCCEEDED),
                        org.assertj.core.groups.Tuple.tuple("t1", TaskState.ASSIGNED));
    }

    private void advanceTo(Instant instant) {
        scheduler.advance(Duration.between(clock, instant));
        clock = instant;
    }

    private List<AttemptAssigned> assigned(List<JournalEntry> entries) {
        seen.addAll(entries);
        List<AttemptAssigned> out = new ArrayList<>();
        for (JournalEntry e : entries) {
            if (e.getEvent() instanceof AttemptAssigned a) {
                out.add(a);
            }
        }
        return out;
    }



    private static WorkerRegistered register(String id, int slots, Instant at) {
        return register(id, slots, at, Map.of());
    }

    private static WorkerRegistered register(String id, int slots, Instant at, Map<String, String> labels) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setLabels(labels).setSlots(slots)
                .setRegisteredAt(at).build();
    }

    private static WorkerHeartbeat heartbeat(String id, long generation, Instant at) {
        return WorkerHeartbeat.newBuilder().setWorkerId(id).setPool(POOL).setGeneration(generation)
                .setRunning(List.of()).setSentAt(at).build();
    }

    private static TaskSubmitted task(String id, Instant at) {
        return task(id, at, Map.of());
    }

    private static TaskSubmitted task(String id, Instant at, Priority priority) {
        TaskSubmitted t = task(id, at, Map.of());
        t.setPriority(priority);
        return t;
    }

    private static TaskSubmitted task(String id, Instant at, Map<String, String> labels) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(labels)
                .setPayload(ByteBuffer.wrap(id.getBytes())).setSubmittedAt(at).build();
    }

    private static TaskCancelRequested cancel(String id, Instant at) {
        return TaskCancelRequested.newBuilder().setTaskId(id).setPool(POOL).setRequestedAt(at).build();
    }

    private static AttemptStarted started(String id, int attempt, String worker, long generation, Instant at) {
        return AttemptStarted.newBuilder().setTaskId(id).setPool(POOL).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setAt(at).build();
    }

    private static AttemptSucceeded succeeded(String id, int attempt, String worker, long generation, Instant at) {
        return AttemptSucceeded.newBuilder().setTaskId(id).setPool(POOL).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(generation).setAt(at).build();
    }

    private static AttemptFailed failed(String id, int attempt, String worker, Instant at, String error) {
        return AttemptFailed.newBuilder().setTaskId(id).setPool(POOL).setAttempt(attempt).setWorkerId(worker)
                .setGeneration(1L).setAt(at).setError(error).setRetryable(true).build();
    }
}
