package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SchedulerProcess;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import io.cronoq.schemas.events.Journal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The set-up and the checks the fault tests share, so each test reads as its scenario: a run's scheduler
 * configuration and topics, a fleet of simulated workers, scheduler children (each in a JVM of its own, logging
 * under {@code target/chaos-logs}), waiting for progress, and the verdict read back from the committed journal and
 * assignments.
 */
final class ChaosRun {

    private static final Logger log = LoggerFactory.getLogger(ChaosRun.class);
    /** The options of a scheduler child: small, quick to start. */
    /** The children's JVM options; {@code -Dcronoq.chaos.child.xmx=2g} gives them more heap (a run with a large backlog). */
    static final List<String> CHILD_JVM = List.of("-Xmx" + System.getProperty("cronoq.chaos.child.xmx", "384m"),
            "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ChaosRun() {}

    /** The configuration of run {@code run}: topics prefixed {@code run.}, application id {@code run}. */
    static SchedulerConfig config(String bootstrap, String run, Path stateDir, int partitions) {
        return config(bootstrap, run, stateDir, partitions, Map.of());
    }

    /** {@link #config(String, String, Path, int)} with {@code extra} settings on top. */
    static SchedulerConfig config(String bootstrap, String run, Path stateDir, int partitions,
                                  Map<String, String> extra) {
        Map<String, String> settings = new HashMap<>(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap,
                SchedulerConfig.TOPIC_PREFIX.name(), run + ".",
                SchedulerConfig.APPLICATION_ID.name(), run,
                SchedulerConfig.STATE_DIR.name(), stateDir.toString(),
                SchedulerConfig.PARTITIONS.name(), String.valueOf(partitions)));
        settings.putAll(extra);
        return SchedulerConfig.of(settings);
    }

    /**
     * The configuration of a worker fault test's run: two partitions, a tick every 200 ms, and a worker evicted
     * after {@code heartbeatTimeoutMs} without a heartbeat.
     */
    static SchedulerConfig workerFaultConfig(String bootstrap, String run, Path stateDir, int heartbeatTimeoutMs) {
        return config(bootstrap, run, stateDir, 2, Map.of(
                SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), String.valueOf(heartbeatTimeoutMs),
                SchedulerConfig.TICK_INTERVAL_MS.name(), "200"));
    }

    /** The run's topics, created. */
    static Topics topics(SchedulerConfig config, SchemaRegistry registry) {
        Topics topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
        TopicSetup.ensure(config, topics);
        return topics;
    }

    /** {@code size} workers {@code run-w0...} spread over {@code pools} in turn, {@code slots} slots each. */
    static List<WorkerRegistered> fleet(String run, List<String> pools, int size, int slots) {
        List<WorkerRegistered> fleet = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            fleet.add(WorkerRegistered.newBuilder().setWorkerId(run + "-w" + i).setPool(pools.get(i % pools.size()))
                    .setSlots(slots).setRegisteredAt(Instant.now()).build());
        }
        return fleet;
    }

    /** Registers {@code fleet} through {@code workers} and waits until the scheduler accepted every one. */
    static void acceptFleet(SimulatedWorkers workers, List<WorkerRegistered> fleet, Duration timeout) {
        workers.register(fleet);
        await("the fleet is accepted").atMost(timeout)
                .until(() -> workers.accepted(fleet.stream().map(WorkerRegistered::getWorkerId).toList()));
    }

    /** {@code target/chaos-logs}, created. */
    static Path logs() {
        try {
            return Files.createDirectories(Path.of("target", "chaos-logs"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a scheduler child on {@code config} with {@code stateDir} and {@code extra} settings on top. */
    static SchedulerProcess start(SchedulerConfig config, Path stateDir, Map<String, String> extra, Path logFile) {
        Map<String, String> settings = new HashMap<>(config.asMap());
        settings.put(SchedulerConfig.STATE_DIR.name(), stateDir.toString());
        settings.putAll(extra);
        return SchedulerProcess.start(settings, CHILD_JVM, logFile);
    }

    /** {@link #start}, the child added to {@code children} (for the test to kill at the end). */
    static SchedulerProcess child(SchedulerConfig config, Path stateDir, Map<String, String> extra, Path logFile,
                                  List<SchedulerProcess> children) {
        SchedulerProcess process = start(config, stateDir, extra, logFile);
        children.add(process);
        return process;
    }

    /**
     * Instance {@code name} of the run: its state in {@code dir/state-name}, its log
     * {@code target/chaos-logs/<application id>-name-<children so far>.log}.
     */
    static SchedulerProcess child(SchedulerConfig config, Path dir, String name, Map<String, String> extra,
                                  List<SchedulerProcess> children) {
        return child(config, dir.resolve("state-" + name), extra, logs().resolve(
                config.get(SchedulerConfig.APPLICATION_ID) + "-" + name + "-" + children.size() + ".log"), children);
    }

    /** One pool per partition of the input topics ({@code run-p0}, ...): each pool's owner is one instance alone. */
    static List<String> poolsOnPartitionsOfTheirOwn(String run, int partitions) {
        List<String> pools = new ArrayList<>();
        Set<Integer> used = new HashSet<>();
        for (int i = 0; pools.size() < partitions; i++) {
            String pool = run + "-p" + i;
            if (used.add(partitionOf(pool, partitions))) {
                pools.add(pool);
            }
        }
        return pools;
    }

    /** The stream task that schedules {@code pool} (e.g. {@code 0_2}): the topology has one sub-topology. */
    static String taskOf(String pool, int partitions) {
        return "0_" + partitionOf(pool, partitions);
    }

    /** The partition the default partitioner gives a record keyed by this pool. */
    private static int partitionOf(String pool, int partitions) {
        return Utils.toPositive(Utils.murmur2(pool.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    /** Deletes {@code dir} and everything in it (nothing when it does not exist). */
    static void wipe(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not wipe " + dir, e);
        }
    }

    /** Nanoseconds as whole milliseconds. */
    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** Prints a measured figure on standard output (where Surefire keeps it) and logs it. */
    static void report(Logger log, String format, Object... args) {
        String line = String.format(format, args);
        System.out.println(line);
        log.info(line);
    }

    /** Waits until an in-JVM scheduler runs. */
    static void awaitRunning(SchedulerApp scheduler, Duration timeout) {
        await("the scheduler runs").atMost(timeout)
                .until(() -> scheduler.streams().state() == KafkaStreams.State.RUNNING);
    }

    /** Waits until {@code tasks} more tasks succeeded. */
    static void progress(JournalWatcher journal, int tasks, String when, Duration timeout) {
        long target = journal.succeeded().count() + tasks;
        await(tasks + " more tasks finish " + when).atMost(timeout)
                .until(() -> journal.succeeded().count() >= target);
        log.info("{} tasks finished {}", journal.succeeded().count(), when);
    }

    /** Waits until as many tasks succeeded as were submitted. */
    static void awaitAllFinished(JournalWatcher journal, List<String> submitted, Duration timeout) {
        await("every submitted task finishes").atMost(timeout)
                .until(() -> journal.succeeded().count() >= submitted.size());
    }

    static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }

    /** The members of consumer group {@code group} now. */
    static int members(String bootstrap, String group) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().members().size();
        }
    }

    /** Nanoseconds as seconds, one decimal. */
    static String fmt(long nanos) {
        return String.format("%.1f", nanos / 1e9);
    }

    /**
     * What is committed, read from the start: the journal's entries (one element per entry, each
     * under its record's coordinates) and the assignments' events (likewise, one per event).
     */
    record Committed(List<ConsumerRecord<String, JournalEntry>> journal,
                     List<ConsumerRecord<String, AssignmentEvent>> assignments) {

        static Committed read(String bootstrap, Topics topics) {
            List<ConsumerRecord<String, JournalEntry>> entries = new ArrayList<>();
            for (ConsumerRecord<String, JournalEntry> r : TopicDump.readAll(bootstrap, topics.journal().name(),
                    topics.journal().valueSerde().deserializer())) {
                for (JournalEntry entry : Journal.entries(r.value())) {
                    entries.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(), entry));
                }
            }
            List<ConsumerRecord<String, AssignmentEvent>> events = new ArrayList<>();
            for (ConsumerRecord<String, AssignmentEvent> r : TopicDump.readAll(bootstrap, topics.assignments().name(),
                    topics.assignments().valueSerde().deserializer())) {
                for (Object event : Assignments.events(r.value())) {
                    events.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(), Assignments.of(event)));
                }
            }
            return new Committed(entries, events);
        }

        JournalVerdict verdict() {
            return JournalVerdict.of(journal, assignments);
        }

        /** The whole journal folded. */
        JournalFold fold() {
            JournalFold fold = new JournalFold();
            journal.forEach(r -> fold.apply(r.value()));
            return fold;
        }
    }

    /** The verdict of a run, and its tasks lost, duplicated and stuck. */
    record Tally(JournalVerdict verdict, long lost, long duplicated, long stuck) {

        /** Reads what is committed and counts. */
        static Tally of(String bootstrap, Topics topics, List<String> submitted) {
            Committed committed = Committed.read(bootstrap, topics);
            JournalVerdict verdict = committed.verdict();
            return new Tally(verdict, ChaosRun.lost(verdict, submitted), ChaosRun.duplicated(verdict),
                    ChaosRun.stuck(committed.fold()));
        }
    }

    /** Submitted tasks that never succeeded. */
    static long lost(JournalVerdict verdict, List<String> submitted) {
        return submitted.stream().filter(id -> !verdict.succeededPerTask().containsKey(id)).count();
    }

    /** Successes beyond the first of a task, and (task, attempt)s assigned or journaled as assigned twice. */
    static long duplicated(JournalVerdict verdict) {
        return verdict.succeededPerTask().values().stream().filter(n -> n > 1).count()
                + verdict.assignedTwice().size() + verdict.journaledTwice().size();
    }

    /** Tasks not succeeded and groups with a slot still busy. */
    static long stuck(JournalFold fold) {
        return fold.tasks().values().stream().filter(t -> t.state() != TaskState.SUCCEEDED).count()
                + fold.groups().stream().filter(g -> g.busy() > 0).count();
    }

    /** Every submitted task finished exactly once, and no (task, attempt) was assigned twice. */
    static void assertEachFinishedOnceNoneAssignedTwice(JournalVerdict verdict, List<String> submitted) {
        assertThat(verdict.succeededPerTask()).as("one TaskFinished SUCCEEDED per submitted task, and no other")
                .containsOnlyKeys(submitted)
                .allSatisfy((task, count) -> assertThat(count).as("finishes of " + task).isEqualTo(1));
        assertThat(verdict.assignedTwice()).as("(task, attempt) assigned twice in the committed assignments").isEmpty();
        assertThat(verdict.journaledTwice()).as("(task, attempt) journaled as assigned twice").isEmpty();
    }
}
