package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRemoved;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What-if simulation over journals recorded without Kafka. */
class SimulationTest {

    private static final Map<String, String> NONE = Map.of();
    private static final Map<String, String> GPU = Map.of("gpu", "a100");

    @ParameterizedTest(name = "variant {0}, rules of time {1}")
    @CsvSource({"1, false", "7, false", "42, false", "1, true", "7, true", "42, true"})
    void withNoChangeTheSimulationMakesEveryRecordedDecisionAgain(long variant, boolean withTime) {
        List<JournalEntry> recorded = JournalRecorder.busyDay(variant, withTime);
        JournalShape.isRich(recorded);
        if (withTime) {
            JournalShape.hasTimesDecisions(recorded);
        }

        WhatIf.Report report = WhatIf.run(recorded, FleetChange.none());

        assertThat(report.reproduced()).isTrue();
        for (String pool : List.of("batch", "etl")) {
            List<JournalEntry> simulated = Simulation.run(pool, only(pool, recorded), FleetChange.none()).journal();
            assertThat(Placements.of(simulated)).as("same task, attempt, worker and generation, in the same order")
                    .containsExactlyElementsOf(Placements.of(only(pool, recorded)));
            assertThat(simulated.stream().map(JournalEntry::getEvent).toList())
                    .as("every input and decision of %s, as journaled", pool)
                    .containsExactlyElementsOf(only(pool, recorded).stream().map(JournalEntry::getEvent).toList());
        }
        for (WhatIf.GroupResult g : report.groups()) {
            assertThat(g.simulated()).as("waits of %s/%s", g.pool(), g.labels()).isEqualTo(g.recorded());
        }
    }

    /**
     * Gangs are simulated as recorded: placed whole, one that loses to a stream of single tasks
     * reserves its slots after the wait, one whose member fails runs again whole; and with a worker
     * fewer, the gang that needed every worker waits with the reason that the workers could never hold it.
     */
    @Test
    void aJournalWithGangsIsReproducedEntryForEntryAndAWorkerFewerChangesItsGangs() {
        JournalRecorder r = JournalRecorder.scripted();
        for (int w = 0; w < 4; w++) {
            r.register(0, "p", "w" + w, Map.of("rack", w < 2 ? "a" : "b"), 2);
        }
        for (int i = 0; i < 120; i++) {
            String id = "s" + i;
            r.script(id, JournalRecorder.Run.succeeds(0, 4_000 + (i % 5) * 1_000L));
            r.submit(500 + i * 600L, JournalRecorder.task(500 + i * 600L, "p", id).build());
        }
        r.script("spread-1", JournalRecorder.Run.fails(0, 2_000), JournalRecorder.Run.succeeds(0, 3_000));
        for (String member : List.of("spread-0", "spread-2", "spread-3")) { // still running when spread-1 fails
            r.script(member, JournalRecorder.Run.succeeds(0, 5_000), JournalRecorder.Run.succeeds(0, 3_000));
        }
        r.submitGang(1_000, gang("spread", 4, io.cronoq.events.GangPlacement.SPREAD, null, 1_000));
        r.submitGang(2_000, gang("rack", 2, io.cronoq.events.GangPlacement.ANY, "rack", 2_000));
        r.submitGang(3_000, gang("packed", 2, io.cronoq.events.GangPlacement.PACK, null, 3_000));
        List<JournalEntry> recorded = r.record();
        assertThat(recorded).as("the spread gang ran twice, each time whole")
                .filteredOn(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().startsWith("spread-"))
                .hasSize(8);
        assertThat(recorded).as("a gang reserved slots")
                .anyMatch(e -> e.getEvent() instanceof TaskWaiting w && w.getReason().contains("reserving since"));

        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none()).journal();
        assertThat(simulated).as("every entry: times, event and cause").containsExactlyElementsOf(recorded);

        List<JournalEntry> fewer = Simulation.run("p", recorded,
                new FleetChange(List.of(), List.of(new FleetChange.RemoveGroup("p", Map.of("rack", "b"))))).journal();
        assertThat(fewer).anyMatch(e -> e.getEvent() instanceof TaskWaiting w && w.getTaskId().equals("spread-0")
                && w.getReason().contains("the workers registered now could never hold it all"));
    }

    private static final Map<String, String> PLAIN = Map.of("plain", "yes");

    /**
     * A reservation's held slot backfilled with a short single task, and a gang held back by a concurrency key its
     * members name, are decided again entry for entry: backfill reads only the leases the journal records.
     */
    @Test
    void aJournalWithBackfillAndAKeyedGangIsReproducedEntryForEntry() {
        JournalRecorder r = JournalRecorder.scripted();
        r.register(0, "p", "w0", Map.of("plain", "yes"), 3);
        for (int i = 0; i < 3; i++) { // their leases say the gang is sure of its slots 10 minutes in
            r.script("long-" + i, JournalRecorder.Run.succeeds(0, 100_000L * (i + 1)));
            r.submit(0, JournalRecorder.task(0, "p", "long-" + i).setLabels(PLAIN).setTimeoutMs(600_000L).build());
        }
        io.cronoq.events.GangSubmitted g = gang("g", 3, io.cronoq.events.GangPlacement.ANY, null, 1_000);
        g.getMembers().forEach(m -> m.setLabels(PLAIN));
        r.submitGang(1_000, g);
        r.script("too-long", JournalRecorder.Run.succeeds(0, 5_000));
        r.submit(2_000, JournalRecorder.task(2_000, "p", "too-long").setLabels(PLAIN).setTimeoutMs(900_000L).build());
        r.script("short", JournalRecorder.Run.succeeds(0, 10_000));
        r.submit(3_000, JournalRecorder.task(3_000, "p", "short").setLabels(PLAIN).setTimeoutMs(30_000L).build());
        io.cronoq.events.GangSubmitted keyed = gang("keyed", 2, io.cronoq.events.GangPlacement.ANY, null, 4_000);
        keyed.getMembers().forEach(m -> {
            m.setConcurrency(List.of(new io.cronoq.events.ConcurrencyKey("licence", 2)));
            m.setLabels(Map.of("licensed", "yes"));
        });
        r.register(0, "p", "w1", Map.of("licensed", "yes"), 3);
        r.script("holder", JournalRecorder.Run.succeeds(0, 20_000));
        r.submit(3_500, JournalRecorder.task(3_500, "p", "holder").setLabels(Map.of("licensed", "yes"))
                .setConcurrency(List.of(new io.cronoq.events.ConcurrencyKey("licence", 2))).build());
        r.submitGang(4_000, keyed);
        List<JournalEntry> recorded = r.record();
        assertThat(recorded).as("short ran on a slot held for g, before g started")
                .anyMatch(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().equals("short")
                        && e.getCause() != null && e.getCause().contains("backfilled on a slot held for gang g"));
        assertThat(recorded).as("the keyed gang waits while a single task holds one of the key's two places")
                .anyMatch(e -> e.getEvent() instanceof TaskWaiting w && w.getTaskId().equals("keyed-0")
                        && w.getReason().contains("concurrency key licence: 1/2 running, and 2 members need it at once"));
        assertThat(recorded).as("and starts whole once the key is free")
                .filteredOn(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().startsWith("keyed-"))
                .hasSize(2);

        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none()).journal();
        assertThat(simulated).as("every entry: times, event and cause").containsExactlyElementsOf(recorded);
    }

    private static io.cronoq.events.GangSubmitted gang(String id, int size, io.cronoq.events.GangPlacement layout,
                                                       String sameLabel, long ms) {
        List<io.cronoq.events.TaskSubmitted> members = new java.util.ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            members.add(JournalRecorder.task(ms, "p", id + "-" + rank).build());
        }
        return new io.cronoq.events.GangSubmitted(id, "p", layout, sameLabel, members, "tests", JournalRecorder.t(ms));
    }

    @Test
    void addingWorkersToTheStarvedGroupLowersItsWaits() {
        List<JournalEntry> recorded = starvedGpuGroup();

        WhatIf.Report report = WhatIf.run(recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers("batch", GPU, 2, 2)), List.of()));

        WhatIf.GroupResult gpu = group(report, "gpu=a100");
        assertThat(gpu.recorded().p90()).as("recorded: the a100 line is long").isGreaterThan(60_000);
        assertThat(gpu.simulated().p90()).isLessThan(gpu.recorded().p90());
        assertThat(gpu.simulated().max()).isLessThan(gpu.recorded().max());
        assertThat(gpu.simulated().attempts()).as("the 12 a100 tasks, and unlabeled ones when the others are full")
                .isGreaterThanOrEqualTo(12);
        assertThat(report.pools().get(0).waitingSimulated()).isZero();
        assertThat(report.pools().get(0).addedWorkers()).isEqualTo(2);
        assertThat(report.reproduced()).isFalse();
    }

    @Test
    void removingAGroupLeavesTheTasksOnlyItCouldRunWaiting() {
        List<JournalEntry> recorded = starvedGpuGroup();

        WhatIf.Report report = WhatIf.run(recorded, new FleetChange(
                List.of(), List.of(new FleetChange.RemoveGroup("batch", GPU))));

        WhatIf.PoolResult batch = report.pools().get(0);
        assertThat(batch.droppedRegistrations()).isEqualTo(1);
        assertThat(batch.waitingRecorded()).isZero();
        assertThat(batch.waitingSimulated()).as("the 12 a100 tasks").isEqualTo(12);
        assertThat(group(report, "gpu=a100").simulated().attempts()).isZero();
        assertThat(group(report, "").simulated().attempts()).isEqualTo(30);
    }

    @Test
    void anAttemptLostInTheRecordingFinishesWhenTheSimulationPlacesItOnAWorkerThatStays() {
        // Recorded: w1 takes t1 and leaves after 10 s without reporting it; its leave grace (5 s) ends at 15.1 s and
        // t1 is lost then; it waits until w2 comes at 20 s and runs 5 s there.
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("t1", JournalRecorder.Run.succeeds(0, 60_000), JournalRecorder.Run.succeeds(1_000, 5_000))
                .register(0, "batch", "w1", NONE, 1)
                .submit(100, "batch", "t1", NONE)
                .leave(10_100, "batch", "w1")
                .register(20_000, "batch", "w2", NONE, 1)
                .record();

        // With an extra worker from the start ("simulated-1" sorts before "w1"), t1 never meets the leaving worker.
        List<JournalEntry> simulated = Simulation.run("batch", recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers("batch", NONE, 1, 1)), List.of())).journal();

        List<AttemptAssigned> placed = simulated.stream().map(JournalEntry::getEvent)
                .filter(AttemptAssigned.class::isInstance).map(AttemptAssigned.class::cast).toList();
        assertThat(placed).singleElement().satisfies(a -> assertThat(a.getWorkerId()).isEqualTo("simulated-1"));
        JournalEntry finished = simulated.stream().filter(e -> e.getEvent() instanceof TaskFinished).findFirst()
                .orElseThrow();
        assertThat(((TaskFinished) finished.getEvent()).getOutcome()).isEqualTo(AttemptOutcome.SUCCEEDED);
        assertThat(finished.getAt()).as("not before the recorded attempt's lifetime (to the end of the grace), then the"
                + " next run's 5 s").isEqualTo(JournalRecorder.t(100 + 15_001));
    }

    @Test
    void aCancelStillCancelsWhereverTheTaskRuns() {
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("t1", JournalRecorder.Run.succeeds(0, 10_000))
                .register(0, "batch", "w1", NONE, 1)
                .submit(100, "batch", "t1", NONE)
                .submit(200, "batch", "t2", NONE)
                .cancel(5_000, "batch", "t2")
                .record();

        List<JournalEntry> simulated = Simulation.run("batch", recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers("batch", NONE, 1, 1)), List.of())).journal();

        assertThat(simulated).filteredOn(e -> e.getEvent() instanceof TaskCancelled).singleElement()
                .satisfies(e -> assertThat(((TaskCancelled) e.getEvent()).getPreviousState())
                        .as("recorded it waited; simulated it was placed at once").isEqualTo(TaskState.ASSIGNED));
    }

    @Test
    void theLoopOrdersSimultaneousEventsAsTheJournalDid() {
        List<JournalEntry> recorded = JournalRecorder.scripted()
                .script("a", JournalRecorder.Run.succeeds(0, 1_000))
                .register(0, "p", "w1", NONE, 1)
                .submit(0, "p", "a", NONE)
                .submit(1_000, "p", "b", NONE)
                .submit(1_000, "p", "c", NONE)
                .record();

        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none()).journal();

        assertThat(Placements.of(simulated)).extracting(Placements.Placement::taskId).containsExactly("a", "b", "c");
        assertThat(Placements.of(simulated)).containsExactlyElementsOf(Placements.of(recorded));
    }

    @Test
    void aChangeNamingAPoolOrGroupTheJournalLacksIsRefusedNamingTheFlag() {
        List<JournalEntry> recorded = starvedGpuGroup();

        assertThatThrownBy(() -> WhatIf.run(recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers("nope", GPU, 1, 1)), List.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--add-workers")
                .hasMessageContaining("nope");
        assertThatThrownBy(() -> WhatIf.run(recorded, new FleetChange(
                List.of(), List.of(new FleetChange.RemoveGroup("batch", Map.of("gpu", "h100"))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--remove-group")
                .hasMessageContaining("gpu=h100").hasMessageContaining("'gpu=a100'");
    }

    /**
     * A pipeline in one pool (extract, then three transforms, then a load after all of them) on one slot: the
     * simulation without change makes every recorded decision, blocked tasks and releases included; with two more
     * workers the transforms run side by side and the load, the pipeline's end, starts 20 s sooner.
     */
    @Test
    void aPipelineReplaysToItsRecordedDecisionsAndAFasterFleetMovesItsEnd() {
        JournalRecorder r = JournalRecorder.scripted().register(0, "etl", "w1", NONE, 1);
        r.script("extract", JournalRecorder.Run.succeeds(0, 10_000));
        r.submit(0, JournalRecorder.task(0, "etl", "extract").build());
        List<io.cronoq.events.Dependency> transforms = new java.util.ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            r.script("transform-" + i, JournalRecorder.Run.succeeds(0, 10_000));
            r.submit(0, JournalRecorder.task(0, "etl", "transform-" + i).setAfter(List.of(
                    new io.cronoq.events.Dependency("extract", null, io.cronoq.events.ParentCondition.SUCCEEDED))).build());
            transforms.add(new io.cronoq.events.Dependency("transform-" + i, null,
                    io.cronoq.events.ParentCondition.SUCCEEDED));
        }
        r.script("load", JournalRecorder.Run.succeeds(0, 10_000));
        r.submit(0, JournalRecorder.task(0, "etl", "load").setAfter(transforms).build());
        List<JournalEntry> recorded = r.record();
        assertThat(recorded).extracting(e -> e.getEvent().getClass().getSimpleName()).contains("TaskBlocked");

        List<JournalEntry> same = Simulation.run("etl", recorded, FleetChange.none()).journal();
        assertThat(same).extracting(JournalEntry::getEvent)
                .containsExactlyElementsOf(recorded.stream().map(JournalEntry::getEvent).toList());

        List<JournalEntry> faster = Simulation.run("etl", recorded, new FleetChange(
                List.of(new FleetChange.AddWorkers("etl", NONE, 2, 1)), List.of())).journal();
        assertThat(loadStart(recorded)).isEqualTo(JournalRecorder.T0.plusSeconds(40));
        assertThat(loadStart(faster)).isEqualTo(JournalRecorder.T0.plusSeconds(20));
    }

    private static java.time.Instant loadStart(List<JournalEntry> journal) {
        return journal.stream().filter(e -> e.getEvent() instanceof AttemptAssigned a && a.getTaskId().equals("load"))
                .findFirst().orElseThrow().getAt();
    }

    /** 3 unlabeled workers (2 slots), 1 a100 worker (1 slot); 30 unlabeled and 12 a100 tasks of 20 to 40 s. */
    static List<JournalEntry> starvedGpuGroup() {
        JournalRecorder r = JournalRecorder.scripted();
        r.register(0, "batch", "cpu-1", NONE, 2).register(0, "batch", "cpu-2", NONE, 2)
                .register(0, "batch", "cpu-3", NONE, 2).register(0, "batch", "gpu-1", GPU, 1);
        for (int i = 0; i < 30; i++) {
            r.script("c" + i, JournalRecorder.Run.succeeds(200, 20_000 + (i % 5) * 2_000));
            r.submit(1_000 + i * 4_000L, "batch", "c" + i, NONE);
        }
        for (int i = 0; i < 12; i++) {
            r.script("g" + i, JournalRecorder.Run.succeeds(500, 30_000 + (i % 3) * 5_000));
            r.submit(2_000 + i * 10_000L, "batch", "g" + i, GPU);
        }
        return r.record();
    }

    private static WhatIf.GroupResult group(WhatIf.Report report, String labels) {
        return report.groups().stream().filter(g -> g.labels().equals(labels)).findFirst().orElseThrow();
    }

    private static List<JournalEntry> only(String pool, List<JournalEntry> journal) {
        return journal.stream().filter(e -> e.getPool().equals(pool)).toList();
    }

    /** What a journal must hold for the no-change test to prove something. */
    static final class JournalShape {
        static void isRich(List<? extends JournalEntry> journal) {
            List<Object> events = journal.stream().map(JournalEntry::getEvent).collect(Collectors.toList());
            Set<String> tasks = events.stream().filter(AttemptAssigned.class::isInstance)
                    .map(e -> ((AttemptAssigned) e).getTaskId()).collect(Collectors.toSet());
            Set<Map<String, String>> groups = events.stream().filter(AttemptAssigned.class::isInstance)
                    .map(e -> Map.copyOf(((AttemptAssigned) e).getGroup())).collect(Collectors.toSet());
            assertThat(tasks).as("dozens of placed tasks").hasSizeGreaterThan(40);
            assertThat(groups).as("several groups").hasSizeGreaterThanOrEqualTo(4);
            assertThat(events).as("retries").anyMatch(e -> e instanceof AttemptAssigned a && a.getAttempt() > 1);
            assertThat(events).as("failures").anyMatch(e -> e instanceof TaskFinished f
                    && f.getOutcome() == AttemptOutcome.FAILED);
            assertThat(events).as("a worker's attempts lost").anyMatch(e -> e instanceof TaskFinished f
                    && f.getOutcome() == AttemptOutcome.LOST);
            assertThat(events).as("cancels").anyMatch(TaskCancelled.class::isInstance);
            assertThat(events).as("a worker leaving").anyMatch(WorkerRemoved.class::isInstance);
            boolean stampedLate = false;
            for (int i = 1; i < journal.size(); i++) {
                stampedLate |= journal.get(i).getPool().equals(journal.get(i - 1).getPool())
                        && journal.get(i).getAt().isBefore(journal.get(i - 1).getAt());
            }
            assertThat(stampedLate).as("some inputs stamped before earlier-processed ones").isTrue();
        }

        /** Decisions of ticks: a delayed start, a retry after its backoff, a fixed start, a lease expiry. */
        static void hasTimesDecisions(List<? extends JournalEntry> journal) {
            List<Object> events = journal.stream().map(JournalEntry::getEvent).collect(Collectors.toList());
            assertThat(events).as("not before").anyMatch(e -> e instanceof TaskWaiting w
                    && w.getReason().startsWith("not before"));
            assertThat(events).as("a backoff").anyMatch(e -> e instanceof TaskWaiting w
                    && w.getReason().contains("after a backoff"));
            assertThat(events).as("a fixed start").anyMatch(e -> e instanceof AttemptAssigned a && a.getStartAt() != null);
            assertThat(events).as("a lease expiry").anyMatch(e -> e instanceof AttemptRevoked r
                    && r.getReason().startsWith("lease expired"));
        }
    }
}
