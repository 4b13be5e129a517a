package io.cronoq.scheduler.topology;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The scheduler topology under {@link TopologyTestDriver}, with the same serdes as production (an
 * in-memory schema registry) and terse ways to pipe events in and read decisions out.
 */
final class SchedulerDriver implements AutoCloseable {

    /** Up to this many task records the index is checked after every input; beyond, after every {@link #CHECK_EVERY}th. */
    private static final int CHECK_EVERY_INPUT_UP_TO = 256;
    private static final int CHECK_EVERY = 64;

    final Topics topics;
    final TopologyTestDriver driver;
    private final TestInputTopic<String, SubmissionEvent> submissions;
    private final TestInputTopic<String, WorkerEvent> workers;
    private final TestInputTopic<String, CompletionEvent> completions;
    private final TestOutputTopic<String, AssignmentEvent> assignments;
    private final TestOutputTopic<String, JournalEntry> journal;
    private final TestOutputTopic<String, DeadLetter> deadLetters;
    private final io.cronoq.scheduler.policy.TimeRules rules;
    /** Inputs and ticks so far. */
    private long steps;

    SchedulerDriver() {
        this(RegistrationGuard.open());
    }

    /** The topology with {@code guard} checking worker registrations. */
    SchedulerDriver(RegistrationGuard guard) {
        this(guard, Map.of(), null);
    }

    /**
     * The topology with these scheduler settings (time rules, tick interval) and its wall clock
     * starting at {@code wallClock}: time passes only when {@link #advance} says so.
     */
    SchedulerDriver(Map<String, String> settings, java.time.Instant wallClock) {
        this(RegistrationGuard.open(), settings, wallClock);
    }

    private SchedulerDriver(RegistrationGuard guard, Map<String, String> settings, java.time.Instant wallClock) {
        this.topics = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry());
        Path stateDir;
        try {
            stateDir = Files.createTempDirectory("cronoq-ttd");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Map<String, String> all = new java.util.HashMap<>(settings);
        all.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), "dummy:9092");
        all.put(SchedulerConfig.STATE_DIR.name(), stateDir.toString());
        // The fewest entries in memory, so that every line or queue longer than four goes through the disk.
        all.putIfAbsent(SchedulerConfig.INDEX_MEMORY_ENTRIES.name(), Integer.toString(IndexedTaskStore.MIN_IN_MEMORY));
        SchedulerConfig config = SchedulerConfig.of(all);
        this.rules = config.timeRules();
        var topology = SchedulerTopology.build(topics, guard, config.timeRules(), config.tickInterval(),
                config.journalRecords(), config.assignmentRecords());
        this.driver = wallClock == null
                ? new TopologyTestDriver(topology, SchedulerApp.streamsProperties(config))
                : new TopologyTestDriver(topology, SchedulerApp.streamsProperties(config), wallClock);
        this.submissions = input(topics.submissions());
        this.workers = input(topics.workers());
        this.completions = input(topics.completions());
        this.assignments = output(topics.assignments());
        this.journal = output(topics.journal());
        this.deadLetters = output(topics.deadLetters());
    }

    private <V> TestInputTopic<String, V> input(io.cronoq.schemas.Topic<String, V> topic) {
        return driver.createInputTopic(topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer());
    }

    private <V> TestOutputTopic<String, V> output(io.cronoq.schemas.Topic<String, V> topic) {
        return driver.createOutputTopic(topic.name(), topic.keySerde().deserializer(), topic.valueSerde().deserializer());
    }

    /** Pipes one input event, keyed by its pool, to the topic it belongs on. */
    SchedulerDriver send(SpecificRecord event) {
        return sendKeyed(poolOf(event), event);
    }

    /** Pipes one input event under an explicit key (e.g. a wrong one). */
    SchedulerDriver sendKeyed(String key, SpecificRecord event) {
        return pipe(key, event, null);
    }

    /** Pipes one input event, keyed by its pool, with an explicit record timestamp (its producer's clock). */
    SchedulerDriver sendAt(SpecificRecord event, java.time.Instant timestamp) {
        return pipe(poolOf(event), event, timestamp);
    }

    /** Pipes one input event to the topic it belongs on, stamped {@code timestamp} (null: the input topic's own). */
    private SchedulerDriver pipe(String key, SpecificRecord event, java.time.Instant timestamp) {
        if (event instanceof TaskSubmitted || event instanceof TaskCancelRequested
                || event instanceof io.cronoq.events.SharingPolicySet || event instanceof io.cronoq.events.LimitSet
                || event instanceof io.cronoq.events.GangSubmitted) {
            pipe(submissions, key, new SubmissionEvent(event), timestamp);
        } else if (event instanceof WorkerRegistered || event instanceof WorkerHeartbeat
                || event instanceof WorkerDraining || event instanceof WorkerLeft) {
            pipe(workers, key, new WorkerEvent(event), timestamp);
        } else if (event instanceof AttemptStarted || event instanceof AttemptSucceeded
                || event instanceof AttemptFailed) {
            pipe(completions, key, new CompletionEvent(event), timestamp);
        } else {
            throw new IllegalArgumentException("not an input event: " + event.getSchema().getName());
        }
        return stepped();
    }

    private static <V> void pipe(TestInputTopic<String, V> topic, String key, V value, java.time.Instant timestamp) {
        if (timestamp == null) {
            topic.pipeInput(key, value);
        } else {
            topic.pipeInput(key, value, timestamp);
        }
    }

    /** Pipes a worker event, keyed by its pool, with an explicit record timestamp. */
    SchedulerDriver sendWorkerEventAt(SpecificRecord event, java.time.Instant timestamp) {
        workers.pipeInput(poolOf(event), new WorkerEvent(event), timestamp);
        return stepped();
    }

    /** Lets wall-clock time pass: the scheduler ticks (once, if a tick is due). */
    SchedulerDriver advance(java.time.Duration duration) {
        driver.advanceWallClockTime(duration);
        return stepped();
    }

    /** Pipes raw bytes to an input topic (poison records). */
    void sendRaw(String topicName, byte[] key, byte[] value) {
        var serializer = new ByteArraySerializer();
        driver.createInputTopic(topicName, serializer, serializer).pipeInput(key, value);
    }

    /** Every event of the assignment-topic records produced since the last call, in order, as (worker id, event). */
    List<KeyValue<String, SpecificRecord>> assignments() {
        List<KeyValue<String, SpecificRecord>> out = new ArrayList<>();
        assignments.readKeyValuesToList().forEach(kv -> Assignments.events(CodecAgreement.checked(kv.value))
                .forEach(event -> out.add(KeyValue.pair(kv.key, (SpecificRecord) event))));
        return out;
    }

    /** Journal records produced since the last call, as written: the driver commits after every input, so each holds what one input or tick caused. */
    List<JournalEntry> journalRecords() {
        return journal.readValuesToList().stream().map(CodecAgreement::checked).toList();
    }

    /** Journal entries produced since the last call. */
    List<JournalEntry> journal() {
        return journalRecords().stream().flatMap(r -> Journal.entries(r).stream()).toList();
    }

    List<DeadLetter> deadLetters() {
        return deadLetters.readValuesToList();
    }

    /** The one task with this id, in whichever pool (tests that reuse an id across pools name the pool). */
    TaskRecord task(String taskId) {
        KeyValueStore<String, TaskRecord> store = driver.getKeyValueStore(StoreNames.TASKS);
        List<TaskRecord> found = new ArrayList<>();
        try (var it = store.all()) {
            it.forEachRemaining(kv -> {
                if (kv.value.getTask().getTaskId().equals(taskId)) {
                    found.add(kv.value);
                }
            });
        }
        if (found.size() > 1) {
            throw new IllegalStateException("task id " + taskId + " is used in several pools: name the pool");
        }
        return found.isEmpty() ? null : found.get(0);
    }

    TaskRecord task(String pool, String taskId) {
        KeyValueStore<String, TaskRecord> store = driver.getKeyValueStore(StoreNames.TASKS);
        return store.get(StoreNames.taskKey(pool, taskId));
    }

    WorkerRecord worker(String pool, String workerId) {
        KeyValueStore<String, WorkerRecord> store = driver.getKeyValueStore(StoreNames.WORKERS);
        return store.get(StoreNames.workerKey(pool, workerId));
    }

    /** The index of a pool's waiting lines, timers and expiries, as the tasks store carries it. */
    PoolIndex index(String pool) {
        return IndexedTaskStore.indexOf(driver.getKeyValueStore(StoreNames.TASKS)).pool(pool);
    }

    /**
     * Checks, after every input and tick, that the index the policy changed as it decided equals
     * the one the task records give (what a restarted or promoted instance rebuilds), so every test
     * on this driver also tests that the records always say where their tasks are. The check rebuilds
     * the index from every record, so with more than {@value #CHECK_EVERY_INPUT_UP_TO} records (a test
     * that fills a cache with thousands of tasks) it runs after every {@value #CHECK_EVERY}th input
     * only, and always when the driver closes.
     */
    private SchedulerDriver stepped() {
        steps++;
        boolean many = driver.getKeyValueStore(StoreNames.TASKS).approximateNumEntries() > CHECK_EVERY_INPUT_UP_TO;
        return many && steps % CHECK_EVERY != 0 ? this : indexMatchesRecords();
    }

    private SchedulerDriver indexMatchesRecords() {
        TaskIndex live = IndexedTaskStore.indexOf(driver.getKeyValueStore(StoreNames.TASKS));
        TaskIndex rebuilt = new TaskIndex(rules);
        KeyValueStore<String, TaskRecord> store = driver.getKeyValueStore(StoreNames.TASKS);
        try (var it = store.all()) {
            it.forEachRemaining(kv -> rebuilt.add(kv.value));
        }
        org.assertj.core.api.Assertions.assertThat(describe(live))
                .as("the index kept by the policy, against the one rebuilt from the task records")
                .isEqualTo(describe(rebuilt));
        return this;
    }

    private static List<String> describe(TaskIndex index) {
        List<String> out = new ArrayList<>();
        index.pools().forEach((pool, p) -> {
            p.lines().forEach((line, entries) -> entries.entries().forEach(e ->
                    out.add(pool + " line " + line + " " + e.getKey() + " " + e.getValue())));
            p.pendingTimers().forEach(t -> out.add(pool + " timer " + t));
            p.pendingExpiries().forEach(t -> out.add(pool + " expiry " + t));
        });
        java.util.Collections.sort(out);
        return out;
    }

    <V> List<KeyValue<String, V>> storeContents(String storeName) {
        KeyValueStore<String, V> store = driver.getKeyValueStore(storeName);
        List<KeyValue<String, V>> out = new ArrayList<>();
        try (var it = store.all()) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static String poolOf(SpecificRecord event) {
        return String.valueOf(event.get(event.getSchema().getField("pool").pos()));
    }

    /**
     * Closes the driver, once every task and worker record left in the stores was checked against Avro's writer
     * and reader.
     */
    @Override
    public void close() {
        try (var tasks = indexMatchesRecords().driver.<String, TaskRecord>getKeyValueStore(StoreNames.TASKS).all();
             var workers = driver.<String, WorkerRecord>getKeyValueStore(StoreNames.WORKERS).all()) {
            tasks.forEachRemaining(kv -> CodecAgreement.checked(kv.value));
            workers.forEachRemaining(kv -> CodecAgreement.checked(kv.value));
        } finally {
            driver.close();
        }
    }
}
