package io.cronoq.ops.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.ops.bench.JournalWatcher;
import io.cronoq.ops.bench.SchedulerProcess;
import io.cronoq.ops.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
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
        Path logs = Files.createDirectories(Path.of("target", "chaos-logs"));
        Path data = dir.resolve("kafka");
        int port = LocalKafka.freePort();
        int controllerPort = LocalKafka.freePort();
        String bootstrap = "127.0.0.1:" + port;
        List<BrokerProcess> brokers = new ArrayList<>();
        SchedulerProcess scheduler = null;
        SchemaRegistry registry = null;
        try {
            brokers.add(BrokerProcess.start(data, port, controllerPort, logs.resolve(run + "-broker.log"), PROGRESS));
            SchedulerConfig config = SchedulerConfig.of(Map.of(
                    SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap,
                    SchedulerConfig.TOPIC_PREFIX.name(), run + ".",
                    SchedulerConfig.APPLICATION_ID.name(), run,
                    SchedulerConfig.STATE_DIR.name(), dir.resolve("state").toString(),
                    SchedulerConfig.PARTITIONS.name(), String.valueOf(PARTITIONS)));
            registry = SchedulerApp.registry(config);
            Topics topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
            TopicSetup.ensure(config, topics);

            List<String> pools = List.of(run + "-a", run + "-b");
            List<WorkerRegistered> fleet = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                fleet.add(WorkerRegistered.newBuilder().setWorkerId(run + "-w" + i).setPool(pools.get(i % pools.size()))
                        .setSlots(3).setRegisteredAt(Instant.now()).build());
            }
            Map<String, String> settings = new HashMap<>(config.asMap());
            scheduler = SchedulerProcess.start(settings, List.of("-Xmx384m", "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1"), logs.resolve(run + "-scheduler.log"));
            scheduler.awaitRunning(PROGRESS);
            ConcurrentLinkedQueue<Long> assignedAt = new ConcurrentLinkedQueue<>();
            try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 200);
                 JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
                workers.onAssigned(a -> assignedAt.add(System.nanoTime()));
                workers.register(fleet);
                await("the fleet is accepted").atMost(PROGRESS)
                        .until(() -> workers.accepted(fleet.stream().map(WorkerRegistered::getWorkerId).toList()));
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
                    await("every submitted task finishes").atMost(Duration.ofMinutes(2))
                            .until(() -> journal.succeeded().count() >= submitted.size());
                    String state = scheduler.state();

                    List<ConsumerRecord<String, JournalEntry>> entries = TopicDump.readAll(bootstrap,
                            topics.journal().name(), topics.journal().valueSerde().deserializer());
                    List<ConsumerRecord<String, AssignmentEvent>> assignments = TopicDump.readAll(bootstrap,
                            topics.assignments().name(), topics.assignments().valueSerde().deserializer());
                    JournalVerdict verdict = JournalVerdict.of(entries, assignments);
                    JournalFold fold = new JournalFold();
                    entries.forEach(r -> fold.apply(r.value()));
                    long lost = submitted.stream().filter(id -> !verdict.succeededPerTask().containsKey(id)).count();
                    long duplicated = verdict.succeededPerTask().values().stream().filter(n -> n > 1).count()
                            + verdict.assignedTwice().size() + verdict.journaledTwice().size();
                    long stuck = fold.tasks().values().stream().filter(t -> !t.state().name().equals("SUCCEEDED"))
                            .count() + fold.groups().stream().filter(g -> g.busy() > 0).count();
                    log.info("Broker restart verdict: {} tasks acknowledged ({} refused), lost {}, duplicated {}, "
                                    + "stuck {}; {} attempt(s) re-queued as LOST; first assignment {} s after the broker "
                                    + "was started again ({} s after it served, {} s after the kill); scheduler {}",
                            submitted.size(), load.failures(), lost, duplicated, stuck, verdict.lost().size(),
                            fmt(next - restartAt), fmt(next - upAt), fmt(next - killedAt), state);
                    assertThat(load.failures()).as("submissions the broker refused").isZero();
                    assertThat(workers.sendFailures()).as("worker reports the broker refused").isZero();
                    assertThat(lost).as("acknowledged tasks that never succeeded").isZero();
                    assertThat(verdict.succeededPerTask()).as("one success per acknowledged task, no other")
                            .containsOnlyKeys(submitted);
                    assertThat(duplicated).as("duplicates: " + verdict).isZero();
                    assertThat(verdict.keyMismatches()).isEmpty();
                    assertThat(stuck).as("tasks not finished or slots still busy").isZero();
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
        long target = journal.succeeded().count() + tasks;
        await(tasks + " more tasks finish " + when).atMost(PROGRESS)
                .until(() -> journal.succeeded().count() >= target);
        log.info("{} tasks finished {}", journal.succeeded().count(), when);
    }

    private static String fmt(long nanos) {
        return String.format("%.1f", nanos / 1e9);
    }
}
