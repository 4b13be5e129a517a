package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SchedulerProcess;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rolling restart of two scheduler instances (child JVMs, one standby replica each) under a steady load: each
 * in turn is stopped cleanly (it commits and leaves the group, so its pools move to the other's warm standbys at
 * once), started again on its state directory, and takes pools back at the next rebalance. The test measures the
 * longest pause of any pool at each step, printed as {@code rolling: ...} lines. Nothing may be lost or assigned
 * twice, and every task must finish.
 */
// Alone: it bounds how long scheduling pauses while pools move, a time other classes running beside it would stretch.
@Isolated
@Tag("integration")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RollingRestartTest {

    private static final Logger log = LoggerFactory.getLogger(RollingRestartTest.class);
    private static final int PARTITIONS = 4;
    private static final Duration PROGRESS = Duration.ofSeconds(60);
    /**
     * The bound on a planned move's pause, at a clean stop and at a return. The goal is 2 s (measured 1.0-1.8 s
     * in five runs); the bound is generous, as a shared machine is noisy.
     */
    private static final Duration MOVE_BOUND = Duration.ofSeconds(3);

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    private final AssignmentGaps gaps = new AssignmentGaps();

    @Test
    void restartingBothInstancesInTurnPausesNoPoolForLong() throws Exception {
        String run = "rolling-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.config(bootstrap, run, dir.resolve("state-setup"), PARTITIONS);
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = ChaosRun.topics(config, registry);
        List<String> pools = ChaosRun.poolsOnPartitionsOfTheirOwn(run, PARTITIONS);
        List<WorkerRegistered> fleet = ChaosRun.fleet(run, pools, PARTITIONS, 4);
        List<SchedulerProcess> children = new ArrayList<>();
        try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 200);
             JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
            workers.onAssigned(gaps::record);
            Map<String, SchedulerProcess> instances = new HashMap<>();
            instances.put("A", child(config, "A", children));
            instances.put("B", child(config, "B", children));
            instances.values().forEach(p -> p.awaitRunning(PROGRESS));
            ChaosRun.acceptFleet(workers, fleet, PROGRESS);
            await("both instances own pools").atMost(PROGRESS).until(() -> bothOwnPools(instances));

            List<Long> pauses = new ArrayList<>();
            try (SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 25)) {
                ChaosRun.progress(journal, 200, "before the restarts", PROGRESS);
                for (String name : List.of("A", "B")) {
                    SchedulerProcess remaining = instances.get(name.equals("A") ? "B" : "A");
                    long stopping = System.nanoTime();
                    instances.get(name).close();
                    await("the remaining instance owns every pool").atMost(PROGRESS)
                            .until(() -> remaining.activeTasks().size() == PARTITIONS);
                    long moved = System.nanoTime();
                    ChaosRun.progress(journal, 40, "after " + name + " stopped", PROGRESS);
                    long stopGap = gaps.longestGapMs(pools, stopping, System.nanoTime());

                    long restarting = System.nanoTime();
                    SchedulerProcess again = child(config, name, children);
                    instances.put(name, again);
                    again.awaitRunning(PROGRESS);
                    await(name + " owns pools again").atMost(Duration.ofSeconds(150))
                            .until(() -> bothOwnPools(instances));
                    long owns = System.nanoTime();
                    ChaosRun.progress(journal, 40, "after " + name + " took pools back", PROGRESS);
                    long returnGap = gaps.longestGapMs(pools, restarting, System.nanoTime());
                    report("rolling: %s stopped cleanly; every pool was on the other instance after %d ms and no pool"
                            + " paused over %d ms; started again, it owned %s after %d ms, and no pool paused over %d ms",
                            name, ms(moved - stopping), stopGap, again.activeTasks(), ms(owns - restarting), returnGap);
                    pauses.add(stopGap);
                    pauses.add(returnGap);
                }
                load.stop();
                List<String> submitted = load.submitted();
                assertThat(load.failures()).as("submissions the broker refused").isZero();
                ChaosRun.awaitAllFinished(journal, submitted, Duration.ofMinutes(1));
                ChaosRun.assertEachFinishedOnceNoneAssignedTwice(ChaosRun.Committed.read(bootstrap, topics).verdict(),
                        submitted);
            }
            assertThat(pauses).as("the longest pause of any pool (ms) at each stop and each return")
                    .allSatisfy(ms -> assertThat(Duration.ofMillis(ms)).isLessThanOrEqualTo(MOVE_BOUND));
        } finally {
            children.forEach(SchedulerProcess::kill);
            registry.close();
        }
    }

    private static boolean bothOwnPools(Map<String, SchedulerProcess> instances) {
        return instances.values().stream().allMatch(p -> p.state().equals("RUNNING") && !p.activeTasks().isEmpty());
    }

    private SchedulerProcess child(SchedulerConfig config, String name, List<SchedulerProcess> children) {
        return ChaosRun.child(config, dir, name, Map.of(SchedulerConfig.STANDBY_REPLICAS.name(), "1"), children);
    }

    private static long ms(long nanos) {
        return ChaosRun.ms(nanos);
    }

    private static void report(String format, Object... args) {
        ChaosRun.report(log, format, args);
    }
}
