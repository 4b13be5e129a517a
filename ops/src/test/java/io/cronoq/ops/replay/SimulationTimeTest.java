package io.cronoq.ops.replay;

import static io.cronoq.ops.replay.JournalRecorder.Run.fails;
import static io.cronoq.ops.replay.JournalRecorder.Run.succeeds;
import static io.cronoq.ops.replay.JournalRecorder.t;
import static io.cronoq.ops.replay.JournalRecorder.task;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.policy.TimeRules;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The simulation's ticks and replayed evictions: time's decisions, over journals recorded with ticks. */
class SimulationTimeTest {

    private static final Map<String, String> NONE = Map.of();
    private static final String POOL = "p";

    @Test
    void aJournalWithDelayedStartsABackoffAFixedStartANearDeadlineAndALeaseExpiryIsReproducedDecisionForDecision() {
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("long", succeeds(100, 40_000))
                .script("flaky", fails(100, 5_000), succeeds(100, 3_000))
                .script("later", succeeds(100, 2_000))
                .script("slow", succeeds(100, 60_000), succeeds(100, 2_000))
                .script("fixed", succeeds(100, 5_000))
                .register(0, POOL, "w1", NONE, 1)
                .register(0, POOL, "w2", NONE, 1)
                .submit(1_000, POOL, "long", NONE)
                .submit(1_000, POOL, "flaky", NONE)
                .submit(2_000, task(2_000, POOL, "later").setNotBefore(t(15_000)).build())
                .submit(3_000, task(3_000, POOL, "fixed").setStartAt(t(60_000)).build())
                .submit(20_000, task(20_000, POOL, "slow").setTimeoutMs(5_000L).build())
                .submit(31_000, POOL, "filler-1", NONE)
                .submit(31_500, POOL, "filler-2", NONE)
                .submit(32_000, task(32_000, POOL, "urgent").setDeadline(t(32_000 + 605_000)).build())
                .record();
        assertThat(recorded).as("not before").anyMatch(waiting("later", "not before"));
        assertThat(recorded).as("a backoff after the failure").anyMatch(waiting("flaky", "after a backoff of 1s"));
        assertThat(recorded).as("the lease expired").anyMatch(e -> e.getEvent() instanceof AttemptRevoked r
                && r.getTaskId().equals("slow") && r.getReason().startsWith("lease expired"));
        assertThat(recorded).as("the fixed start, held from its reservation").anyMatch(e ->
                e.getEvent() instanceof AttemptAssigned a && a.getTaskId().equals("fixed") && a.getStartAt() != null
                        && e.getAt().equals(t(30_000)));
        assertThat(recorded).as("started on time").anyMatch(e -> e.getEvent() instanceof AttemptStarted s
                && s.getTaskId().equals("fixed") && e.getCause().contains("on time"));
        assertThat(recorded).as("the deadline came near").anyMatch(waiting("urgent", "moved ahead"));
        assertThat(Placements.of(recorded)).as("urgent overtook the fillers")
                .filteredOn(p -> !p.taskId().equals("fixed")).extracting(Placements.Placement::taskId)
                .endsWith("urgent", "filler-1", "filler-2");

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, FleetChange.none()).journal();

        assertThat(simulated).as("every entry: time, event and cause").containsExactlyElementsOf(recorded);
        assertThat(WhatIf.run(recorded, FleetChange.none()).reproduced()).isTrue();
    }

    @Test
    void aRecordedEvictionIsReplayedExactlyAndItsAttemptsAreRequeued() {
        // w1 stops heartbeating at 20 s (its last heartbeat was at 18 s) and is evicted at 28 s, holding t1;
        // t1's next attempt waits for w2. w1 registers again at 40 s, takes t3, drains and leaves.
        List<JournalEntry> recorded = JournalRecorder.scripted().heartbeats(10_000)
                .script("t1", succeeds(100, 100_000), succeeds(100, 5_000))
                .script("t2", succeeds(100, 30_000))
                .script("t3", succeeds(100, 10_000))
                .register(0, POOL, "w1", NONE, 1)
                .register(0, POOL, "w2", NONE, 1)
                .submit(1_000, POOL, "t1", NONE)
                .submit(1_000, POOL, "t2", NONE)
                .silence(20_000, POOL, "w1")
                .register(40_000, POOL, "w1", NONE, 1)
                .submit(45_000, POOL, "t3", NONE)
                .drain(50_000, POOL, "w1")
                .leave(70_000, POOL, "w1")
                .record();
        JournalEntry eviction = recorded.stream().filter(e -> e.getEvent() instanceof WorkerRemoved r
                && r.getState() == WorkerState.EVICTED).findFirst().orElseThrow();
        assertThat(eviction.getAt()).isEqualTo(t(28_000));
        assertThat(recorded).anyMatch(lost("t1", 1, 28_000));
        assertThat(recorded).as("its next registration, after the eviction bumped the generation")
                .anyMatch(e -> e.getEvent() instanceof WorkerAccepted w && w.getGeneration() == 3);

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, FleetChange.none()).journal();

        assertThat(simulated).as("every entry: the eviction, its fence and lost attempt, and the generations after it")
                .containsExactlyElementsOf(recorded);
        assertThat(Placements.of(simulated)).extracting(Placements.Placement::taskId)
                .containsExactly("t1", "t2", "t1", "t3");
        assertThat(WhatIf.run(recorded, FleetChange.none()).reproduced()).isTrue();
    }

    @Test
    void inAWhatIfTheEvictedWorkerLosesWhateverItHoldsThere() {
        // Recorded: w1 (1 slot) runs one of three long tasks and is evicted at 28 s; w2 comes at 35 s.
        // Simulated with 2 slots more, all three run from the start, one of them on w1.
        JournalRecorder recorder = JournalRecorder.scripted().heartbeats(10_000);
        for (String id : List.of("t1", "t2", "t3")) {
            recorder.script(id, succeeds(100, 100_000), succeeds(100, 5_000)).submit(1_000, POOL, id, NONE);
        }
        List<JournalEntry> recorded = recorder.register(0, POOL, "w1", NONE, 1)
                .silence(20_000, POOL, "w1")
                .register(35_000, POOL, "w2", NONE, 1)
                .record();

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers(POOL, NONE, 1, 2)), List.of())).journal();

        assertThat(Placements.of(simulated)).as("all three at once").hasSizeGreaterThanOrEqualTo(3)
                .anyMatch(p -> p.workerId().equals("w1"));
        List<JournalEntry> lost = simulated.stream().filter(e -> e.getEvent() instanceof TaskFinished f
                && f.getOutcome() == AttemptOutcome.LOST).toList();
        assertThat(lost).as("the attempt w1 held in the simulation").singleElement().satisfies(e -> {
            TaskFinished f = (TaskFinished) e.getEvent();
            assertThat(f.getWorkerId()).isEqualTo("w1");
            assertThat(f.getState()).isEqualTo(TaskState.WAITING);
            assertThat(e.getAt()).isEqualTo(t(28_000));
            assertThat(simulated).as("and placed again").anyMatch(a -> a.getEvent() instanceof AttemptAssigned next
                    && next.getTaskId().equals(f.getTaskId()) && next.getAttempt() == f.getAttempt() + 1);
        });
    }

    @Test
    void aTickComesBeforeAnInputOfTheSameTime() {
        // flaky fails at 3 s; its retry is due at 4 s, when other is submitted: the tick takes the free slot first.
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("flaky", fails(0, 2_000), succeeds(0, 1_000))
                .register(0, POOL, "w1", NONE, 1)
                .submit(1_000, POOL, "flaky", NONE)
                .submit(4_000, POOL, "other", NONE)
                .record();
        assertThat(Placements.of(recorded)).extracting(Placements.Placement::taskId)
                .containsExactly("flaky", "flaky", "other");

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, FleetChange.none()).journal();

        assertThat(simulated).containsExactlyElementsOf(recorded);
    }

    @Test
    void addingAWorkerRunsADelayedTaskSoonerButNeverBeforeItsNotBefore() {
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("long", succeeds(100, 60_000))
                .script("delayed", succeeds(100, 1_000))
                .register(0, POOL, "w1", NONE, 1)
                .submit(1_000, POOL, "long", NONE)
                .submit(5_000, task(5_000, POOL, "delayed").setNotBefore(t(20_000)).build())
                .record();
        assertThat(assignedAt(recorded, "delayed")).as("recorded: after long, on the only worker").isEqualTo(61_100);

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers(POOL, NONE, 1, 1)), List.of())).journal();

        assertThat(simulated).as("it still waits out its not-before").anyMatch(waiting("delayed", "not before"));
        assertThat(assignedAt(simulated, "delayed")).as("at its not-before, not at its submission").isEqualTo(20_000);
    }

    @Test
    void aFixedStartPlacedEarlierStillStartsAtItsStartTime() {
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("long", succeeds(100, 100_000))
                .script("fixed", succeeds(100, 5_000))
                .register(0, POOL, "w1", NONE, 1)
                .submit(1_000, POOL, "long", NONE)
                .submit(2_000, task(2_000, POOL, "fixed").setStartAt(t(60_000)).build())
                .record();
        assertThat(assignedAt(recorded, "fixed")).as("recorded: late, when long ended").isEqualTo(101_100);

        List<JournalEntry> simulated = Simulation.run(POOL, recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers(POOL, NONE, 1, 1)), List.of())).journal();

        assertThat(assignedAt(simulated, "fixed")).as("when its reservation began").isEqualTo(30_000);
        JournalEntry started = simulated.stream().filter(e -> e.getEvent() instanceof AttemptStarted s
                && s.getTaskId().equals("fixed")).findFirst().orElseThrow();
        assertThat(started.getAt()).as("its worker held it until its start, then took as long as recorded")
                .isEqualTo(t(60_100));
        assertThat(started.getCause()).contains("started on time");
    }

    @Test
    void theSimulationTakesTheDurationsTheRecordedSchedulerRanWith() {
        // A priority class worth only 100 ms: the LOW task submitted a second before the HIGH one goes first.
        TimeRules recordedRules = new TimeRules(30_000, 30_000, 600_000, 100, 60_000,
                TimeRules.DEFAULT_RETENTION_MS);
        List<JournalEntry> recorded = JournalRecorder.scripted().rules(recordedRules)
                .script("busy", succeeds(0, 10_000))
                .register(0, POOL, "w1", NONE, 1)
                .submit(1_000, POOL, "busy", NONE)
                .submit(2_000, task(2_000, POOL, "low").setPriority(Priority.LOW).build())
                .submit(3_000, task(3_000, POOL, "high").setPriority(Priority.HIGH).build())
                .record();
        assertThat(Placements.of(recorded)).extracting(Placements.Placement::taskId)
                .containsExactly("busy", "low", "high");

        assertThat(WhatIf.run(recorded, FleetChange.none(), recordedRules).reproduced()).isTrue();
        assertThat(WhatIf.run(recorded, FleetChange.none(), TimeRules.DEFAULT).reproduced())
                .as("with the default step of 5 min, HIGH goes first").isFalse();
    }

    private static Predicate<JournalEntry> waiting(String taskId, String reason) {
        return e -> e.getEvent() instanceof TaskWaiting w && w.getTaskId().equals(taskId)
                && w.getReason().contains(reason);
    }

    private static Predicate<JournalEntry> lost(String taskId, int attempt, long ms) {
        return e -> e.getEvent() instanceof TaskFinished f && f.getTaskId().equals(taskId) && f.getAttempt() == attempt
                && f.getOutcome() == AttemptOutcome.LOST && f.getState() == TaskState.WAITING && e.getAt().equals(t(ms));
    }

    private static long assignedAt(List<JournalEntry> journal, String taskId) {
        return journal.stream().filter(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().equals(taskId))
                .findFirst().orElseThrow().getAt().toEpochMilli() - JournalRecorder.T0.toEpochMilli();
    }
}
