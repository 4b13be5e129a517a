package io.cronoq.bench.chaos;

import static io.cronoq.bench.chaos.ChaosRun.fmt;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.WorkerRegistered;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SchedulerProcess;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker itself, a single KRaft node in a child JVM, is killed hard (SIGKILL) under a steady load and started
 * again on the same port and data directory a few seconds later. The scheduler (a child JVM), the simulated workers
 * and the submitter come back by themselves; at the end every acknowledged task finished exactly once, nothing was
 * assigned twice and no slot stays busy. It reports the time from the broker's restart to the next assignment.
 */
// Alone: it bounds how soon tasks run again once the broker serves, a time other classes running beside it would stretch.
@Isolated
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BrokerRestartTest {

    private static final Logger log = LoggerFactory.getLogger(BrokerRestartTest.class);
    private static final int PARTITIONS = 2;
    private static final Duration PROGRESS = Duration.ofSeconds(90);
    private static final Duration DOWN = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @Test
    void aBrokerKilledAndRestartedUnderLoadLosesAndDuplicatesNothing() throws Exception {
        String run = "brk-" + UUID.randomUUID().toString().substring(0, 6);
        Path logs = ChaosRun.logs();
        Path data = dir.resolve("kafka");
        int port = LocalKafka.freePort();
        int controllerPort = LocalKafka.freePort();
        String bootstrap = "127.0.0.1:" + port;
        List<BrokerProcess> brokers = new ArrayList<>();
        SchedulerProcess scheduler = null;
        SchemaRegistry registry = null;
        try {
            brokers.add(BrokerProcess.start(data, port, controllerPort, logs.resolve(run + "-broker.log"), PROGRESS));
            Path stateDir = dir.resolve("state");
            SchedulerConfig config = ChaosRun.config(bootstrap, run, stateDir, PARTITIONS);
            registry = SchedulerApp.registry(config);
            Topics topics = ChaosRun.topics(config, registry);

            List<String> pools = List.of(run + "-a", run + "-b");
            List<WorkerRegistered> fleet = ChaosRun.fleet(run, pools, 4, 3);
            scheduler = ChaosRun.start(config, stateDir, Map.of(), logs.resolve(run + "-scheduler.log"));
            scheduler.awaitRunning(PROGRESS);
            ConcurrentLinkedQueue<Long> assignedAt = new ConcurrentLinkedQueue<>();
            try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 200);
                 JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
                workers.onAssigned(a -> assignedAt.add(System.nanoTime()));
                ChaosRun.acceptFleet(workers, fleet, PROGRESS);
                try (SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 100)) {
                    progress(journal, 30, "before the broker is killed");

                    brokers.get(0).kill();
                    long killedAt = System.nanoTime();
                    Thread.sleep(DOWN.toMillis());
                    long restartAt = System.nanoTime();
                    brokers.add(BrokerProcess.start(data, port, controllerPort, logs.resolve(run + "-broker.log"),
                            PROGRESS));
                    long upAt = System.nanoTime();
                    log.info("Broker killed, restarted after {} s down; it served again {} s after the restart",
                            fmt(restartAt - killedAt), fmt(upAt - restartAt));
                    long next = await("an assignment after the restart").atMost(PROGRESS)
                            .pollInterval(Duration.ofMillis(50)).until(() -> assignedAt.stream()
                                    .filter(t -> t > restartAt).findFirst().orElse(0L), t -> t > 0);
                    progress(journal, 30, "after the broker's restart");
                    load.stop();
                    List<String> submitted = load.submitted();
                    try {
                        ChaosRun.awaitAllFinished(journal, submitted, Duration.ofMinutes(2));
                    } catch (org.awaitility.core.ConditionTimeoutException e) {
                        scheduler.dumpThreads(); // what the scheduler was doing, in its log
                        throw e;
                    }
                    String state = scheduler.state();

                    ChaosRun.Tally tally = ChaosRun.Tally.of(bootstrap, topics, submitted);
                    JournalVerdict verdict = tally.verdict();
                    log.info("Broker restart verdict: {} tasks acknowledged ({} refused), lost {}, duplicated {}, "
                                    + "stuck {}; {} attempt(s) re-queued as LOST; first assignment {} s after the broker "
                                    + "was started again ({} s after it served, {} s after the kill); scheduler {}",
                            submitted.size(), load.failures(), tally.lost(), tally.duplicated(), tally.stuck(), verdict.lost().size(),
                            fmt(next - restartAt), fmt(next - upAt), fmt(next - killedAt), state);
                    assertThat(load.failures()).as("submissions the broker refused").isZero();
                    assertThat(workers.sendFailures()).as("worker reports the broker refused").isZero();
                    assertThat(tally.lost()).as("acknowledged tasks that never succeeded").isZero();
                    assertThat(verdict.succeededPerTask()).as("one success per acknowledged task, no other")
                            .containsOnlyKeys(submitted);
                    assertThat(tally.duplicated()).as("duplicates: " + verdict).isZero();
                    assertThat(verdict.keyMismatches()).isEmpty();
                    assertThat(tally.stuck()).as("tasks not finished or slots still busy").isZero();
                    assertThat(state).as("the scheduler recovered by itself").isEqualTo("RUNNING");
                    assertThat(next - restartAt).as("assignment after the restart, ns")
                            .isLessThan(TimeUnit.SECONDS.toNanos(90));
                }
            }
        } finally {
            if (scheduler != null) {
                scheduler.kill();
            }
            if (registry != null) {
                registry.close();
            }
            for (BrokerProcess b : brokers) {
                b.close();
            }
        }
    }

    private static void progress(JournalWatcher journal, int tasks, String when) {
        ChaosRun.progress(journal, tasks, when, PROGRESS);
    }
}
