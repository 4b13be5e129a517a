package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SchedulerProcess;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chaos under a steady load: the scheduler runs in child JVMs and is killed hard (SIGKILL: no
 * shutdown hook, no commit, no clean leave of the group) twice and restarted — once on its old state
 * directory, once on a fresh one, so its state comes back from the changelogs alone; a simulated
 * worker is killed with an attempt running and restarted under the same id; then a second instance
 * joins (same application id, its own state directory) and the first is killed. At the end every
 * submitted task finished exactly once, no (task, attempt) was assigned twice, none was lost, and the
 * stores of a fresh instance (restored from the changelogs, read by interactive queries) hold exactly
 * what folding the journal gives.
 *
 * <p>A dead worker's attempts come back as LOST when it registers again or when the scheduler evicts
 * it for silence (30 s without a heartbeat), whichever comes first; the live simulated workers
 * heartbeat every 3 s, so only the victim's attempts may be lost.
 */
@Tag("integration")
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class SchedulerChaosTest {

    private static final Logger log = LoggerFactory.getLogger(SchedulerChaosTest.class);
    private static final int PARTITIONS = 4;
    private static final Duration PROGRESS = Duration.ofSeconds(90);

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void hardKillsOfSchedulersAndAWorkerNeitherLoseNorDuplicateAnyTask() throws Exception {
        String run = "chaos-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.config(bootstrap, run, dir.resolve("state-check"), PARTITIONS);
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = ChaosRun.topics(config, registry);

        List<String> pools = List.of(run + "-a", run + "-b", run + "-c", run + "-d");
        List<WorkerRegistered> fleet = ChaosRun.fleet(run, pools, 8, 3);
        String victim = fleet.get(0).getWorkerId();
        List<SchedulerProcess> children = new ArrayList<>();

        try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 400);
             JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
            SchedulerProcess first = child(config, "A", children);
            ChaosRun.acceptFleet(workers, fleet, PROGRESS);

            try (SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 50)) {
                progress(journal, 40, "before the first kill");
                first.kill();
                SchedulerProcess second = child(config, "A", children);
                progress(journal, 40, "after a restart on the same state directory");

                second.kill();
                SchedulerProcess third = child(config, "A-fresh", children);
                progress(journal, 40, "after a restart on a fresh state directory");

                await("the victim worker has an attempt running").atMost(PROGRESS)
                        .until(() -> workers.running(victim) > 0);
                int running = workers.running(victim);
                workers.kill(victim);
                log.info("Killed worker {} with {} attempt(s) running", victim, running);
                progress(journal, 20, "while worker " + victim + " is dead");
                workers.restart(victim);
                await("the victim is accepted again").atMost(PROGRESS).until(() -> workers.accepted(List.of(victim)));

                SchedulerProcess other = child(config, "B", children);
                other.awaitRunning(PROGRESS);
                await("two instances share the group").atMost(PROGRESS).until(() -> ChaosRun.members(bootstrap, run) == 2);
                progress(journal, 30, "with two instances");
                third.kill();
                progress(journal, 30, "after the first of two instances was killed");
                load.stop();
                List<String> submitted = load.submitted();
                assertThat(load.failures()).as("submissions the broker refused").isZero();
                ChaosRun.awaitAllFinished(journal, submitted, Duration.ofMinutes(2));
                other.close();

                verify(bootstrap, topics, config, submitted, victim);
            }
        } finally {
            children.forEach(SchedulerProcess::kill);
            registry.close();
        }
    }

    private void verify(String bootstrap, Topics topics, SchedulerConfig config, List<String> submitted, String victim) {
        ChaosRun.Committed committed = ChaosRun.Committed.read(bootstrap, topics);
        List<ConsumerRecord<String, AssignmentEvent>> assignments = committed.assignments();
        JournalVerdict verdict = committed.verdict();

        ChaosRun.assertEachFinishedOnceNoneAssignedTwice(verdict, submitted);
        assertThat(verdict.keyMismatches()).as("assignments not keyed by their worker").isEmpty();
        assertThat(verdict.lost()).as("the killed worker's attempts, and only its, were re-queued as LOST")
                .isNotEmpty()
                .allSatisfy(f -> assertThat(f.getWorkerId()).isEqualTo(victim));

        JournalFold fold = committed.fold();
        assertThat(fold.groups()).as("no slot stays busy once everything finished")
                .allSatisfy(g -> assertThat(g.busy()).isZero());

        // A fresh instance restores the stores from the changelogs alone; its interactive queries must
        // show what the journal says.
        SchedulerConfig fresh = ChaosRun.config(bootstrap, config.get(SchedulerConfig.APPLICATION_ID),
                dir.resolve("state-verify"), PARTITIONS);
        try (SchedulerApp app = SchedulerApp.start(fresh)) {
            await("a fresh instance restores").atMost(Duration.ofMinutes(2))
                    .until(() -> app.streams().state() == KafkaStreams.State.RUNNING);
            StoreView stores = await("the stores are queryable").atMost(Duration.ofMinutes(1))
                    .ignoreExceptions().until(() -> StoreView.ofStores(app.streams(), PARTITIONS), v -> true);
            StoreView folded = StoreView.ofFold(fold);
            assertThat(stores.tasks()).as("tasks: stores vs journal fold").isEqualTo(folded.tasks());
            assertThat(stores.workers()).as("workers: stores vs journal fold").isEqualTo(folded.workers());
            log.info("Chaos verdict: {} tasks submitted, each finished exactly once; {} assignments, none twice; "
                            + "{} attempt(s) of the killed worker re-queued as LOST; a fresh instance's stores equal the "
                            + "journal fold ({} tasks, {} workers)", submitted.size(),
                    assignments.stream().filter(r -> r.value().getEvent() instanceof io.cronoq.events.AttemptAssigned).count(),
                    verdict.lost().size(), stores.tasks().size(), stores.workers().size());
        }
    }

    private SchedulerProcess child(SchedulerConfig config, String name, List<SchedulerProcess> children) {
        // A hard-killed member leaves the group only when its session times out: cronoq.session.timeout.ms, 6 s.
        return ChaosRun.child(config, dir, name, Map.of(), children);
    }

    private static void progress(JournalWatcher journal, int tasks, String when) {
        ChaosRun.progress(journal, tasks, when, PROGRESS);
    }
}
