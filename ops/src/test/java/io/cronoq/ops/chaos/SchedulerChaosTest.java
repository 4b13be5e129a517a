package io.cronoq.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.ops.bench.JournalWatcher;
import io.cronoq.ops.bench.SchedulerProcess;
import io.cronoq.ops.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap,
                SchedulerConfig.TOPIC_PREFIX.name(), run + ".",
                SchedulerConfig.APPLICATION_ID.name(), run,
                SchedulerConfig.STATE_DIR.name(), dir.resolve("state-check").toString(),
                SchedulerConfig.PARTITIONS.name(), String.valueOf(PARTITIONS)));
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
        TopicSetup.ensure(config, topics);

        List<String> pools = List.of(run + "-a", run + "-b", run + "-c", run + "-d");
        List<WorkerRegistered> fleet = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            fleet.add(WorkerRegistered.newBuilder().setWorkerId(run + "-w" + i).setPool(pools.get(i % pools.size()))
                    .setSlots(3).setRegisteredAt(Instant.now()).build());
        }
        String victim = fleet.get(0).getWorkerId();
        List<SchedulerProcess> children = new ArrayList<>();

        try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 400);
             JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
            SchedulerProcess first = child(config, "A", children);
            workers.register(fleet);
            await("the fleet is accepted").atMost(PROGRESS)
                    .until(() -> workers.accepted(fleet.stream().map(WorkerRegistered::getWorkerId).toList()));

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
                await("two instances share the group").atMost(PROGRESS).until(() -> members(bootstrap, run) == 2);
                progress(journal, 30, "with two instances");
                third.kill();
                progress(journal, 30, "after the first of two instances was killed");
                load.stop();
                List<String> submitted = load.submitted();
                assertThat(load.failures()).as("submissions the broker refused").isZero();
                await("every submitted task finishes").atMost(Duration.ofMinutes(2))
                        .until(() -> journal.succeeded().count() >= submitted.size());
                other.close();

                verify(bootstrap, topics, config, submitted, victim);
            }
        } finally {
            children.forEach(SchedulerProcess::kill);
            registry.close();
        }
    }

    private void verify(String bootstrap, Topics topics, SchedulerConfig config, List<String> submitted, String victim) {
        List<ConsumerRecord<String, JournalEntry>> journal =
                TopicDump.readAll(bootstrap, topics.journal().name(), topics.journal().valueSerde().deserializer());
        List<ConsumerRecord<String, AssignmentEvent>> assignments =
                TopicDump.readAll(bootstrap, topics.assignments().name(), topics.assignments().valueSerde().deserializer());
        JournalVerdict verdict = JournalVerdict.of(journal, assignments);

        assertThat(verdict.succeededPerTask()).as("one TaskFinished SUCCEEDED per submitted task, and no other")
                .containsOnlyKeys(submitted)
                .allSatisfy((task, count) -> assertThat(count).as("finishes of " + task).isEqualTo(1));
        assertThat(verdict.assignedTwice()).as("(task, attempt) assigned twice in the committed assignments").isEmpty();
        assertThat(verdict.journaledTwice()).as("(task, attempt) journaled as assigned twice").isEmpty();
        assertThat(verdict.keyMismatches()).as("assignments not keyed by their worker").isEmpty();
        assertThat(verdict.lost()).as("the killed worker's attempts, and only its, were re-queued as LOST")
                .isNotEmpty()
                .allSatisfy(f -> assertThat(f.getWorkerId()).isEqualTo(victim));

        JournalFold fold = new JournalFold();
        journal.forEach(r -> fold.apply(r.value()));
        assertThat(fold.groups()).as("no slot stays busy once everything finished")
                .allSatisfy(g -> assertThat(g.busy()).isZero());

        // A fresh instance restores the stores from the changelogs alone; its interactive queries must
        // show what the journal says.
        SchedulerConfig fresh = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap,
                SchedulerConfig.TOPIC_PREFIX.name(), config.get(SchedulerConfig.TOPIC_PREFIX),
                SchedulerConfig.APPLICATION_ID.name(), config.get(SchedulerConfig.APPLICATION_ID),
                SchedulerConfig.STATE_DIR.name(), dir.resolve("state-verify").toString(),
                SchedulerConfig.PARTITIONS.name(), String.valueOf(PARTITIONS)));
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

    private SchedulerProcess child(SchedulerConfig config, String name, List<SchedulerProcess> children) throws Exception {
        Map<String, String> settings = new HashMap<>(config.asMap());
        settings.put(SchedulerConfig.STATE_DIR.name(), dir.resolve("state-" + name).toString());
        // A hard-killed member leaves the group only when its session times out: cronoq.session.timeout.ms, 6 s.
        Path logs = Files.createDirectories(Path.of("target", "chaos-logs"));
        SchedulerProcess process = SchedulerProcess.start(settings,
                List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                logs.resolve(config.get(SchedulerConfig.APPLICATION_ID) + "-" + name + "-" + children.size() + ".log"));
        children.add(process);
        return process;
    }

    private static void progress(JournalWatcher journal, int tasks, String when) {
        long target = journal.succeeded().count() + tasks;
        await(tasks + " more tasks finish " + when).atMost(PROGRESS)
                .until(() -> journal.succeeded().count() >= target);
        log.info("{} tasks finished {}", journal.succeeded().count(), when);
    }

    private static int members(String bootstrap, String group) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().members().size();
        }
    }
}
