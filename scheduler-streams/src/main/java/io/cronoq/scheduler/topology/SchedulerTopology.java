package io.cronoq.scheduler.topology;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DependencyEvent;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * The scheduler as a function from its topics to a {@link Topology}: four inputs keyed by pool
 * (submissions, workers, completions, and the dependencies the scheduler tells itself across pools) are decoded, folded by the placement policy into RocksDB
 * stores, and turned into assignments (key: worker id), journal entries (key: pool), dependency events for
 * other pools (key: pool) and dead letters.
 * Every node and store is named explicitly, so names never shift and changelogs are never orphaned.
 */
public final class SchedulerTopology {

    static final String SCHEDULER = "scheduler";
    static final String ASSIGNMENTS_SINK = "assignments-sink";
    static final String JOURNAL_SINK = "journal-sink";
    static final String DEAD_LETTERS_SINK = "dead-letters-sink";
    static final String DEPENDENCIES_SINK = "dependencies-sink";

    private SchedulerTopology() {}

    /** Builds the scheduler topology over the given topics, accepting every registration (no credentials). */
    public static Topology build(Topics topics) {
        return build(topics, RegistrationGuard.open());
    }

    /** Builds the scheduler topology; {@code guard} decides which worker registrations reach the policy. */
    public static Topology build(Topics topics, RegistrationGuard guard) {
        return build(topics, guard, TimeRules.DEFAULT, DEFAULT_TICK, JournalRecords.PER_COMMIT, AssignmentRecords.PER_COMMIT);
    }

    /** How often time's decisions are taken when the settings do not say. */
    public static final Duration DEFAULT_TICK = Duration.ofSeconds(1);

    /**
     * Builds the scheduler topology. {@code guard} decides which worker registrations reach the
     * policy; {@code rules} are the policy's durations; every {@code tick} of wall-clock time each
     * pool's scheduler decides what time brought (evictions, leases, timers), and journals it. The
     * journal's records hold what {@code journalRecords} says (a pool's entries between two commits,
     * one input's, or one entry) and the assignments topic's what {@code assignmentRecords} says (a
     * worker's events between two commits, or one): the smaller ones as earlier releases wrote them,
     * for their readers while they are upgraded.
     */
    public static Topology build(Topics topics, RegistrationGuard guard, TimeRules rules, Duration tick,
                                 JournalRecords journalRecords, AssignmentRecords assignmentRecords) {
        Topology topology = new Topology();
        addInput(topology, "submissions", topics.submissions(), SubmissionEvent::getEvent);
        addInput(topology, "workers", topics.workers(), WorkerEvent::getEvent);
        addInput(topology, "completions", topics.completions(), CompletionEvent::getEvent);
        addInput(topology, "dependencies", topics.dependencies(), DependencyEvent::getEvent);

        topology.addProcessor(SCHEDULER, () -> new SchedulerProcessor(guard, rules, tick, journalRecords, assignmentRecords),
                "submissions-decode", "workers-decode", "completions-decode", "dependencies-decode");
        topology.addStateStore(tasks(topics.serde(TaskRecord.class), rules), SCHEDULER);
        topology.addStateStore(cached(StoreNames.WORKERS, topics.serde(WorkerRecord.class)), SCHEDULER);
        topology.addStateStore(cached(StoreNames.POOLS, topics.serde(PoolRecord.class)), SCHEDULER);
        topology.addStateStore(cached(StoreNames.SHARING, topics.serde(SharingRecord.class)), SCHEDULER);
        topology.addStateStore(cached(StoreNames.LIMITS, topics.serde(LimitsRecord.class)), SCHEDULER);
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.DEPENDENCIES),
                Serdes.String(), Serdes.ByteArray()).withCachingEnabled(), SCHEDULER);
        topology.addStateStore(CommitHook.builder(StoreNames.COMMIT_HOOK), SCHEDULER);

        // The scheduler writes these two records' bodies as it gathers them: their sinks add the header.
        addBodySink(topology, ASSIGNMENTS_SINK, topics.assignments(), SCHEDULER);
        addBodySink(topology, JOURNAL_SINK, topics.journal(), SCHEDULER);
        addSink(topology, DEPENDENCIES_SINK, topics.dependencies(), SCHEDULER);
        addSink(topology, DEAD_LETTERS_SINK, topics.deadLetters(),
                SCHEDULER, "submissions-decode", "workers-decode", "completions-decode", "dependencies-decode");
        return topology;
    }

    private static <E> void addInput(Topology topology, String name, Topic<String, E> topic,
                                     Function<E, Object> unwrap) {
        String source = name + "-source";
        String decode = name + "-decode";
        String rekey = name + "-rekey-sink";
        var bytes = Serdes.ByteArray();
        topology.addSource(source, bytes.deserializer(), bytes.deserializer(), topic.name());
        topology.addProcessor(decode,
                () -> new DecodeProcessor<>(topic.valueSerde().deserializer(), unwrap, rekey), source);
        // A record keyed by anything but its pool goes back to its own topic under the pool key.
        topology.addSink(rekey, topic.name(), bytes.serializer(), bytes.serializer(), decode);
    }

    private static <V> void addBodySink(Topology topology, String name, Topic<String, V> topic, String parent) {
        if (!(topic.valueSerde() instanceof AvroSerde<?> avro)) {
            throw new IllegalArgumentException("topic " + topic + " needs cronoq's Avro serde for its values");
        }
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), avro.bodySerializer(), parent);
    }

    private static <K, V> void addSink(Topology topology, String name, Topic<K, V> topic, String... parents) {
        topology.addSink(name, topic.name(), topic.keySerde().serializer(), topic.valueSerde().serializer(), parents);
    }

    /** A store read and written by key: cached, so a record changed several times between two commits is changelogged once. */
    private static <V> StoreBuilder<?> cached(String name, Serde<V> valueSerde) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.String(), valueSerde)
                .withCachingEnabled();
    }

    /**
     * The tasks store: its RocksDB carries the index of waiting lines, timers and expiries derived from
     * the task records ({@link IndexedTaskStore}), so only the records are logged. Unlike the other
     * stores it has no record cache. A task record changes a few times in its life, mostly in different
     * commits, so a cache rarely saves a changelog record; the policy keeps the tasks it has just used
     * decoded ({@code DecodedTasks}), so it seldom reads them back; and once a busy scheduler has
     * filled the cache, nearly every write evicts, and each eviction of a changed record writes out
     * every changed record of the store: a commit's work at each write.
     */
    private static StoreBuilder<?> tasks(Serde<TaskRecord> serde, TimeRules rules) {
        var rocks = IndexedTaskStore.supplier(Stores.persistentKeyValueStore(StoreNames.TASKS), serde, rules);
        return Stores.keyValueStoreBuilder(rocks, Serdes.String(), serde);
    }
}
