package io.cronoq.schemas;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.DependencyEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.WorkerEvent;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * cronoq's typed topic registry: every topic name derived from one prefix (default {@code cronoq.}), bound to its
 * key and value serdes, plus the recommended way to create them. Keys are plain UTF-8 strings; values are Avro
 * in the Confluent wire format through the given {@link SchemaRegistry}.
 */
public final class Topics {

    /** Config key of the topic name prefix. */
    public static final String PREFIX_CONFIG = "cronoq.topic.prefix";
    /** The default prefix: topics are {@code cronoq.submissions}, {@code cronoq.journal}, ... */
    public static final String DEFAULT_PREFIX = "cronoq.";
    /** Partitions of each keyed topic unless {@link #all(int)} is given another count. */
    public static final int DEFAULT_PARTITIONS = 6;
    /** Retention of the journal: it is the log analysts replay. */
    public static final Duration JOURNAL_RETENTION = Duration.ofDays(365);
    /** Retention of the dead letters: long enough to notice, fix and replay them. */
    public static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(30);

    private static final Pattern LEGAL_PREFIX = Pattern.compile("[a-zA-Z0-9._-]*");

    private final String prefix;
    private final SchemaRegistry registry;
    private final Map<Class<?>, AvroSerde<?>> serdes = new ConcurrentHashMap<>();
    private final Topic<String, SubmissionEvent> submissions;
    private final Topic<String, WorkerEvent> workers;
    private final Topic<String, CompletionEvent> completions;
    private final Topic<String, AssignmentEvent> assignments;
    private final Topic<String, JournalEntry> journal;
    private final Topic<String, DeadLetter> deadLetters;
    private final Topic<String, DependencyEvent> dependencies;

    private Topics(String prefix, SchemaRegistry registry) {
        Objects.requireNonNull(prefix, "prefix");
        if (!LEGAL_PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException(PREFIX_CONFIG + " '" + prefix + "' has characters Kafka does not allow "
                    + "in topic names; use only letters, digits, '.', '_' and '-'");
        }
        this.prefix = prefix;
        this.registry = Objects.requireNonNull(registry, "registry");
        Serde<String> keys = Serdes.String();
        this.submissions = new Topic<>(prefix + "submissions", keys, serde(SubmissionEvent.class));
        this.workers = new Topic<>(prefix + "workers", keys, serde(WorkerEvent.class));
        this.completions = new Topic<>(prefix + "completions", keys, serde(CompletionEvent.class));
        this.assignments = new Topic<>(prefix + "assignments", keys, serde(AssignmentEvent.class));
        this.journal = new Topic<>(prefix + "journal", keys, serde(JournalEntry.class));
        this.deadLetters = new Topic<>(prefix + "dead-letters", keys, serde(DeadLetter.class));
        this.dependencies = new Topic<>(prefix + "dependencies", keys, serde(DependencyEvent.class));
    }

    /** The topics under the default prefix {@code cronoq.}. */
    public static Topics defaults(SchemaRegistry registry) {
        return new Topics(DEFAULT_PREFIX, registry);
    }

    /** The topics under another prefix (e.g. {@code staging.cronoq.}, or a test's unique name). */
    public static Topics withPrefix(String prefix, SchemaRegistry registry) {
        return new Topics(prefix, registry);
    }

    /** The name of the embedded schema registry's topic under a prefix: {@code <prefix>_schemas}. */
    public static String schemasTopic(String prefix) {
        return prefix + "_schemas";
    }

    /** The prefix of every name. */
    public String prefix() {
        return prefix;
    }

    /** Task submissions and cancel requests; key: pool. */
    public Topic<String, SubmissionEvent> submissions() {
        return submissions;
    }

    /** Worker registrations, heartbeats, draining and leaving; key: pool. */
    public Topic<String, WorkerEvent> workers() {
        return workers;
    }

    /** Attempt started, progress, succeeded and failed; key: pool. */
    public Topic<String, CompletionEvent> completions() {
        return completions;
    }

    /**
     * What one pool's scheduler tells another about a dependency (a child's watch of its parent, a parent's end
     * told to its child); key: the pool it is for. Only the scheduler writes it, in the transaction of the input
     * that caused it, so a child is released exactly once even when its parent lives on another instance.
     */
    public Topic<String, DependencyEvent> dependencies() {
        return dependencies;
    }

    /** The scheduler's orders to workers; key: worker id. */
    public Topic<String, AssignmentEvent> assignments() {
        return assignments;
    }

    /** Every accepted input and every decision, in processing order; key: pool. */
    public Topic<String, JournalEntry> journal() {
        return journal;
    }

    /** Records that could not be decoded or processed, with their coordinates and the reason. */
    public Topic<String, DeadLetter> deadLetters() {
        return deadLetters;
    }

    /** The embedded schema registry's topic, {@code <prefix>_schemas} (JSON values, no serde). */
    public String schemas() {
        return schemasTopic(prefix);
    }

    /** The serde of any generated class (e.g. the scheduler's {@code TaskRecord} store values); one per class. */
    @SuppressWarnings("unchecked")
    public <T extends SpecificRecord> AvroSerde<T> serde(Class<T> type) {
        return (AvroSerde<T>) serdes.computeIfAbsent(type, t -> AvroSerde.of(type, registry));
    }

    /** Every cronoq topic with {@link #DEFAULT_PARTITIONS} partitions per keyed topic. */
    public List<TopicSpec> all() {
        return all(DEFAULT_PARTITIONS);
    }

    /**
     * Every cronoq topic as it should be created. The inputs (submissions, workers, completions, dependencies) must share one
     * partition count to be co-partitioned, and so does everything keyed by pool; the schema topic has one
     * partition and is compacted.
     */
    public List<TopicSpec> all(int partitions) {
        Map<String, String> delete = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
        return List.of(
                new TopicSpec(submissions.name(), partitions, delete),
                new TopicSpec(workers.name(), partitions, delete),
                new TopicSpec(completions.name(), partitions, delete),
                new TopicSpec(dependencies.name(), partitions, delete),
                new TopicSpec(assignments.name(), partitions, delete),
                new TopicSpec(journal.name(), partitions, Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, String.valueOf(JOURNAL_RETENTION.toMillis()))),
                new TopicSpec(deadLetters.name(), partitions, Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
                        TopicConfig.RETENTION_MS_CONFIG, String.valueOf(DEAD_LETTER_RETENTION.toMillis()))),
                new TopicSpec(schemas(), 1, Map.of(
                        TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT)));
    }
}
