package io.cronoq.scheduler.config;

import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.topology.AssignmentRecords;
import io.cronoq.scheduler.topology.IndexedTaskStore;
import io.cronoq.scheduler.topology.JournalRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * The scheduler's settings: every key declared once below with its default and a line of doc.
 * Values come from a map (a config file's flattened keys, then flags) over the defaults; an
 * unknown {@code cronoq.*} key or a malformed value fails fast with the key and the fix.
 */
public final class SchedulerConfig {

    /** One declared setting. */
    public record Key(String name, String defaultValue, String doc) {}

    public static final Key BOOTSTRAP_SERVERS = new Key("cronoq.bootstrap.servers", "localhost:9092",
            "Kafka bootstrap servers the scheduler reads from and writes to.");
    public static final Key TOPIC_PREFIX = new Key("cronoq.topic.prefix", "cronoq.",
            "Prefix of every cronoq topic name (submissions, workers, completions, assignments, journal, dead-letters).");
    public static final Key APPLICATION_ID = new Key("cronoq.application.id", "cronoq-scheduler",
            "Kafka Streams application id: scheduler instances with the same id share the pools between them.");
    public static final Key PROCESSING_GUARANTEE = new Key("cronoq.processing.guarantee", "exactly_once_v2",
            "exactly_once_v2 (default: a decision, its state change and the consumed offsets commit atomically) or at_least_once.");
    // Under exactly-once a read_committed worker sees an assignment only when the transaction commits,
    // so the commit interval is the floor of submission-to-assignment latency. 20 ms keeps p99 in the
    // tens of milliseconds while costing ~25% of the throughput of the 100 ms Streams default (a store-backed
    // passthrough on a single-node broker drained ~64k records/s at a 10 ms commit, ~85k at 100 ms).
    public static final Key COMMIT_INTERVAL_MS = new Key("cronoq.commit.interval.ms", "20",
            "How often the scheduler commits (ms); under exactly-once this is the floor of assignment latency. The stream "
                    + "thread also waits for input at most this long (Kafka Streams' poll.ms, unless set), so a commit "
                    + "comes due on time when the input pauses.");
    public static final Key STATE_DIR = new Key("cronoq.state.dir", defaultStateDir(),
            "Directory of the RocksDB state stores.");
    public static final Key STANDBY_REPLICAS = new Key("cronoq.num.standby.replicas", "1",
            "Warm copies of each pool's state on other instances, kept up to date from the changelogs, so a failover does not wait for a restore (a lone instance has none to keep; 0 saves the changelog reads).");
    public static final Key INSTANCE_ID = new Key("cronoq.instance.id", "",
            "This instance's static group membership id (group.instance.id): a restarted instance rejoins under it without a rebalance. Empty derives one from the host name and the state directory. Two live instances must never share it: the group fences one of them, and they keep fencing each other.");
    public static final Key SESSION_TIMEOUT_MS = new Key("cronoq.session.timeout.ms", "6000",
            "How long (ms) the group waits for a silent instance before giving its pools to another: the bound on failover after a crash. Shorter evicts a paused instance (GC, network) sooner; at least the brokers' group.min.session.timeout.ms (6000 by default).");
    public static final Key HEARTBEAT_INTERVAL_MS = new Key("cronoq.heartbeat.interval.ms", "500",
            "How often (ms) an instance heartbeats to its group, and so how soon it hears of a rebalance: a pool that moves between live instances waits for both to hear of it. Under a third of cronoq.session.timeout.ms.");
    public static final Key ACCEPTABLE_RECOVERY_LAG = new Key("cronoq.acceptable.recovery.lag", "2000",
            "How far behind (changelog records) an instance's copy of a pool's state may be for the pool to move to it at a rebalance; the new owner restores that much before it schedules. An instance further behind (one restarted with its state wiped) first warms a copy up while the owner goes on scheduling, and takes the pool at a later probing rebalance.");
    public static final Key PROBING_REBALANCE_INTERVAL_MS = new Key("cronoq.probing.rebalance.interval.ms", "60000",
            "How often (ms) the group looks again whether an instance warming up a pool's state has caught up, to move the pool to it: how long a restarted instance may wait for its pools. At least 60000.");
    public static final Key TRANSACTION_TIMEOUT_MS = new Key("cronoq.transaction.timeout.ms", "5000",
            "Under exactly-once, how long (ms) the brokers let a transaction stay open before aborting it: another instance taking over a crashed one's pools waits for its open transaction to be aborted. Far above cronoq.commit.interval.ms.");
    public static final Key INDEX_MEMORY_ENTRIES = new Key(IndexedTaskStore.IN_MEMORY_CONFIG,
            Integer.toString(IndexedTaskStore.DEFAULT_IN_MEMORY),
            "How many of the first entries of each waiting line, timer queue and expiry queue the scheduler keeps in memory (at least "
                    + IndexedTaskStore.MIN_IN_MEMORY + "); the rest wait in an unlogged RocksDB beside the tasks store and are read back as the front drains. The heap then holds about 130 bytes per entry kept, however many tasks wait or are kept finished.");
    public static final Key STREAM_THREADS = new Key("cronoq.num.stream.threads", "1",
            "Stream threads per scheduler instance; pools spread over them by partition.");
    public static final Key SCHEMA_REGISTRY_URL = new Key("cronoq.schema.registry.url", "",
            "A Confluent-compatible schema registry; empty means the embedded registry kept in the <prefix>_schemas topic.");
    public static final Key APPLICATION_SERVER = new Key("cronoq.application.server", "",
            "host:port at which this instance's gateway answers, so other instances can forward queries to it.");
    public static final Key HTTP_GANG_MAX_SIZE = new Key("cronoq.http.gang.max.size",
            Integer.toString(io.cronoq.schemas.rules.GangRules.MAX_SIZE),
            "The most members a gang submitted through the gateway (POST /v1/gangs) may have: 1 to "
                    + io.cronoq.schemas.rules.GangRules.MAX_SIZE + ", the most a gang may have.");
    public static final Key HTTP_BIND = new Key("cronoq.http.bind", "0.0.0.0",
            "Address the gateway listens on: 0.0.0.0 (every interface, as in a pod), 127.0.0.1 (this machine only) or one interface's address.");
    public static final Key HTTP_TLS_KEYSTORE = new Key("cronoq.http.tls.keystore", "",
            "A PKCS12 or JKS keystore with the gateway's certificate and key: the gateway then answers HTTPS only and calls the other instances over HTTPS. Empty: plain HTTP.");
    public static final Key HTTP_TLS_KEYSTORE_PASSWORD_ENV = new Key("cronoq.http.tls.keystore.password.env",
            "CRONOQ_TLS_KEYSTORE_PASSWORD", "The environment variable that holds the keystore's password (never the password itself).");
    public static final Key HTTP_TLS_TRUSTSTORE = new Key("cronoq.http.tls.truststore", "",
            "The certificates the gateway trusts when it calls the other instances; empty: the keystore's own (instances sharing one certificate).");
    public static final Key HTTP_TLS_TRUSTSTORE_PASSWORD_ENV = new Key("cronoq.http.tls.truststore.password.env",
            "CRONOQ_TLS_TRUSTSTORE_PASSWORD", "The environment variable that holds the truststore's password.");
    public static final Key PARTITIONS = new Key("cronoq.topic.partitions", "6",
            "Partitions of the input topics when cronoq creates them (all inputs must have the same count).");

    public static final Key AUTH_SIGNATURE_MAX_AGE_MS = new Key("cronoq.auth.signature.max.age.ms", "300000",
            "How far (ms) a signed worker registration's registeredAt may be from the time its record arrived before it is refused as stale.");

    public static final Key TICK_INTERVAL_MS = new Key("cronoq.tick.interval.ms", "1000",
            "How often (ms of wall-clock time) the scheduler decides what time brought: evictions, lease expiries, delayed starts, near deadlines.");
    public static final Key HEARTBEAT_TIMEOUT_MS = new Key("cronoq.worker.heartbeat.timeout.ms", "30000",
            "A live worker silent this long (ms) is evicted: its capacity leaves its group and its attempts are re-queued. Keep it several heartbeat intervals.");
    public static final Key LEAVE_GRACE_MS = new Key("cronoq.leave.grace.ms",
            String.valueOf(TimeRules.DEFAULT_LEAVE_GRACE_MS),
            "How long (ms, on the scheduler's clock) after a worker's leave the reports of the attempts it still held are accepted: it takes nothing new at once, is removed when its last attempt ends, and what it still holds when the grace ends is lost and re-queued. So a leave read before the reports sent ahead of it loses nothing. 0 loses them at the leave. Keep it below cronoq.worker.heartbeat.timeout.ms: a leaving worker sends no heartbeats.");
    public static final Key GANG_RESERVE_AFTER_MS = new Key("cronoq.gang.reserve.after.ms",
            String.valueOf(TimeRules.DEFAULT_GANG_RESERVE_AFTER_MS),
            "How long (ms) a gang that the workers could hold waits for all its slots to be free at once before the slots that free where it can go are held for it (a reservation), so single tasks cannot starve it. 0 reserves at once.");
    public static final Key GANG_RESERVATION_MS = new Key("cronoq.gang.reservation.ms",
            String.valueOf(TimeRules.DEFAULT_GANG_RESERVATION_MS),
            "How long (ms) a gang's reservation holds slots at most; then they are released and the gang reserves again after cronoq.gang.reserve.after.ms.");
    public static final Key GANG_START_TIMEOUT_MS = new Key("cronoq.gang.start.timeout.ms",
            String.valueOf(TimeRules.DEFAULT_GANG_START_TIMEOUT_MS),
            "How long (ms) after its assignment a gang's member may take to start (its worker reports it started): past it the member's process is taken not to have come up, the other members are revoked and the gang runs again whole, as when a member fails.");
    public static final Key RESERVATION_LEAD_MS = new Key("cronoq.reservation.lead.ms", "30000",
            "How long (ms) before a fixed start the next matching slot is held for the task.");
    public static final Key DEADLINE_LEAD_MS = new Key("cronoq.deadline.lead.ms", "600000",
            "How close (ms) to its deadline a waiting task moves ahead of the tasks without a near deadline.");
    public static final Key PRIORITY_STEP_MS = new Key("cronoq.priority.step.ms", "300000",
            "What one priority class is worth in waiting time (ms): a higher class goes first among tasks submitted within this of each other (aging).");
    public static final Key START_TOLERANCE_MS = new Key("cronoq.start.tolerance.ms", "60000",
            "A fixed start's tolerance (ms) when the task gives none: starting later than this is journaled as late.");
    public static final Key TASK_RETENTION_MS = new Key("cronoq.task.retention.ms",
            String.valueOf(TimeRules.DEFAULT_RETENTION_MS),
            "How long (ms) a finished task stays in the scheduler's stores, and so in GET /v1/tasks, after it finished; then it is forgotten (TaskForgotten in the journal, which keeps its history) and its id may be submitted again. 0 keeps finished tasks forever. Default 7 days.");

    public static final Key JOURNAL_RECORDS = new Key("cronoq.journal.records", "per-commit",
            "How the journal is written: per-commit (one record holds every entry a pool's inputs and ticks caused between two commits, in order, each entry with the times of its input), per-input (one record per input or tick: for journal readers of releases whose records held one input's entries, which take the record's times for all of them) or per-entry (one record per entry: for journal readers of releases whose records held one entry, which read only the first). Readers of this release read all three.");
    public static final Key ASSIGNMENTS_RECORDS = new Key("cronoq.assignments.records", "per-commit",
            "How the assignments topic is written: per-commit (one record holds every event told a worker between two commits, in order; under exactly-once a worker reads its assignments only once the transaction that wrote them commits, so this delays nothing; under at-least-once they wait for the commit) or per-event (one record per event: for worker agents of releases whose records held one event, which read only the first). Agents of this release read both.");

    public static final List<Key> KEYS = List.of(BOOTSTRAP_SERVERS, TOPIC_PREFIX, APPLICATION_ID,
            PROCESSING_GUARANTEE, COMMIT_INTERVAL_MS, STATE_DIR, STANDBY_REPLICAS, INSTANCE_ID, SESSION_TIMEOUT_MS,
            HEARTBEAT_INTERVAL_MS, ACCEPTABLE_RECOVERY_LAG, PROBING_REBALANCE_INTERVAL_MS, TRANSACTION_TIMEOUT_MS,
            STREAM_THREADS, INDEX_MEMORY_ENTRIES,
            SCHEMA_REGISTRY_URL, APPLICATION_SERVER, HTTP_BIND, HTTP_GANG_MAX_SIZE, HTTP_TLS_KEYSTORE, HTTP_TLS_KEYSTORE_PASSWORD_ENV,
            HTTP_TLS_TRUSTSTORE, HTTP_TLS_TRUSTSTORE_PASSWORD_ENV, PARTITIONS, AUTH_SIGNATURE_MAX_AGE_MS, TICK_INTERVAL_MS,
            HEARTBEAT_TIMEOUT_MS, LEAVE_GRACE_MS, RESERVATION_LEAD_MS, DEADLINE_LEAD_MS, PRIORITY_STEP_MS,
            START_TOLERANCE_MS, TASK_RETENTION_MS, GANG_RESERVE_AFTER_MS, GANG_RESERVATION_MS, GANG_START_TIMEOUT_MS,
            JOURNAL_RECORDS, ASSIGNMENTS_RECORDS);

    /** The Kafka settings cronoq sets from a key of its own, each with that key: the Kafka form is refused. */
    private static final Map<String, Key> KAFKA_FORMS = Map.of(
            "group.instance.id", INSTANCE_ID,
            "session.timeout.ms", SESSION_TIMEOUT_MS,
            "heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS,
            "transaction.timeout.ms", TRANSACTION_TIMEOUT_MS,
            "acceptable.recovery.lag", ACCEPTABLE_RECOVERY_LAG,
            "probing.rebalance.interval.ms", PROBING_REBALANCE_INTERVAL_MS);

    private final Map<String, String> values;

    private SchedulerConfig(Map<String, String> values) {
        this.values = values;
    }

    /** Defaults, overridden by {@code overrides}; rejects unknown cronoq keys and malformed numbers. */
    public static SchedulerConfig of(Map<String, ?> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Key key : KEYS) {
            values.put(key.name(), key.defaultValue());
        }
        overrides.forEach((name, value) -> {
            if (name.startsWith("cronoq.") && KEYS.stream().noneMatch(k -> k.name().equals(name))) {
                throw new IllegalArgumentException("unknown setting '" + name + "'; known settings: "
                        + KEYS.stream().map(Key::name).toList());
            }
            values.put(name, String.valueOf(value));
        });
        SchedulerConfig config = new SchedulerConfig(values);
        config.validate();
        return config;
    }

    public static SchedulerConfig defaults() {
        return of(Map.of());
    }

    private void validate() {
        intAtLeast(COMMIT_INTERVAL_MS, 1);
        intAtLeast(STANDBY_REPLICAS, 0);
        int session = intAtLeast(SESSION_TIMEOUT_MS, 1);
        int heartbeat = intAtLeast(HEARTBEAT_INTERVAL_MS, 1);
        if (heartbeat >= session) {
            throw new IllegalArgumentException(HEARTBEAT_INTERVAL_MS.name() + " is " + heartbeat + "; it must be below "
                    + SESSION_TIMEOUT_MS.name() + " (" + session + "), a third of it or less");
        }
        intAtLeast(ACCEPTABLE_RECOVERY_LAG, 0);
        intAtLeast(PROBING_REBALANCE_INTERVAL_MS, 60_000);
        int transaction = intAtLeast(TRANSACTION_TIMEOUT_MS, 1);
        if (transaction <= getInt(COMMIT_INTERVAL_MS)) {
            throw new IllegalArgumentException(TRANSACTION_TIMEOUT_MS.name() + " is " + transaction
                    + "; it must be far above " + COMMIT_INTERVAL_MS.name() + " (" + getInt(COMMIT_INTERVAL_MS) + ")");
        }
        KAFKA_FORMS.forEach((kafkaKey, cronoqKey) -> {
            for (String form : List.of(kafkaKey, "consumer." + kafkaKey, "main.consumer." + kafkaKey,
                    "producer." + kafkaKey)) {
                if (values.containsKey(form)) {
                    throw new IllegalArgumentException("'" + form + "' is set by cronoq; use " + cronoqKey.name()
                            + " instead");
                }
            }
        });
        intAtLeast(STREAM_THREADS, 1);
        intAtLeast(INDEX_MEMORY_ENTRIES, IndexedTaskStore.MIN_IN_MEMORY);
        intAtLeast(PARTITIONS, 1);
        intAtLeast(AUTH_SIGNATURE_MAX_AGE_MS, 1);
        intAtLeast(TICK_INTERVAL_MS, 1);
        intAtLeast(HEARTBEAT_TIMEOUT_MS, 1);
        intAtLeast(LEAVE_GRACE_MS, 0);
        intAtLeast(GANG_RESERVE_AFTER_MS, 0);
        intAtLeast(GANG_RESERVATION_MS, 1);
        intAtLeast(GANG_START_TIMEOUT_MS, 1);
        intAtLeast(RESERVATION_LEAD_MS, 0);
        intAtLeast(DEADLINE_LEAD_MS, 0);
        intAtLeast(PRIORITY_STEP_MS, 0);
        intAtLeast(START_TOLERANCE_MS, 0);
        getLong(TASK_RETENTION_MS);
        if (get(HTTP_BIND).isBlank()) {
            throw new IllegalArgumentException(HTTP_BIND.name() + " is empty; use 0.0.0.0 for every interface or "
                    + "127.0.0.1 for this machine only");
        }
        journalRecords(); // refuses a value it does not know, naming the setting
        assignmentRecords();
        String guarantee = get(PROCESSING_GUARANTEE);
        if (!guarantee.equals("exactly_once_v2") && !guarantee.equals("at_least_once")) {
            throw new IllegalArgumentException(PROCESSING_GUARANTEE.name() + " is '" + guarantee
                    + "'; use exactly_once_v2 or at_least_once");
        }
    }

    public String get(Key key) {
        return values.get(key.name());
    }

    /** The value of an integer setting, rejecting a malformed one or one below {@code min}. */
    public int getInt(Key key) {
        return intAtLeast(key, Integer.MIN_VALUE);
    }

    /** The value of a setting that may exceed an int (a duration of weeks in ms), rejecting a malformed or negative one. */
    public long getLong(Key key) {
        String raw = get(key);
        try {
            long value = Long.parseLong(raw.trim());
            if (value < 0) {
                throw new IllegalArgumentException(key.name() + " is " + value + "; it must be 0 or more");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key.name() + " is '" + raw + "'; it must be a whole number of ms", e);
        }
    }

    private int intAtLeast(Key key, int min) {
        String raw = get(key);
        try {
            int value = Integer.parseInt(raw.trim());
            if (value < min) {
                throw new IllegalArgumentException(key.name() + " is " + value + "; it must be at least " + min);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key.name() + " is '" + raw + "'; it must be a whole number", e);
        }
    }

    /** The placement policy's durations, from the settings above. */
    public TimeRules timeRules() {
        return new TimeRules(getInt(HEARTBEAT_TIMEOUT_MS), getInt(RESERVATION_LEAD_MS), getInt(DEADLINE_LEAD_MS),
                getInt(PRIORITY_STEP_MS), getInt(START_TOLERANCE_MS), getLong(TASK_RETENTION_MS),
                getInt(LEAVE_GRACE_MS), getInt(GANG_RESERVE_AFTER_MS), getInt(GANG_RESERVATION_MS),
                getInt(GANG_START_TIMEOUT_MS));
    }

    /** How many entries a journal record holds. */
    public JournalRecords journalRecords() {
        return choice(JOURNAL_RECORDS, JournalRecords.values());
    }

    /** How many events a record of the assignments topic holds. */
    public AssignmentRecords assignmentRecords() {
        return choice(ASSIGNMENTS_RECORDS, AssignmentRecords.values());
    }

    /**
     * The value of an enum {@code key} names, spelled in lower case with dashes (PER_COMMIT is
     * per-commit).
     *
     * @throws IllegalArgumentException naming the setting and the values it takes, for any other
     */
    private <E extends Enum<E>> E choice(Key key, E[] values) {
        String value = get(key);
        List<String> spelled = new ArrayList<>();
        for (E e : values) {
            String name = e.name().toLowerCase(Locale.ROOT).replace('_', '-');
            if (name.equals(value)) {
                return e;
            }
            spelled.add(name);
        }
        throw new IllegalArgumentException(key.name() + " is '" + value + "'; use one of " + String.join(", ", spelled)
                + " (default " + key.defaultValue() + "): " + key.doc());
    }

    /** How often the scheduler decides what time brought. */
    public Duration tickInterval() {
        return Duration.ofMillis(getInt(TICK_INTERVAL_MS));
    }

    /** Every value, cronoq keys and pass-through keys alike (read-only). */
    public Map<String, String> asMap() {
        return Collections.unmodifiableMap(values);
    }

    /** Settings that are not cronoq's own are handed to Kafka (e.g. security.protocol, sasl.*). */
    private Properties kafkaOverrides() {
        Properties props = new Properties();
        values.forEach((k, v) -> {
            if (!k.startsWith("cronoq.")) {
                props.put(k, v);
            }
        });
        return props;
    }

    /**
     * The common settings of every Kafka client of this configuration: the {@link #kafkaOverrides()}
     * and the bootstrap servers, as {@code io.cronoq.schemas.KafkaClients} takes them (a new map each call).
     */
    public Map<String, Object> kafkaClientSettings() {
        Map<String, Object> settings = new HashMap<>();
        kafkaOverrides().forEach((k, v) -> settings.put(k.toString(), v));
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, get(BOOTSTRAP_SERVERS));
        return settings;
    }

    private static String defaultStateDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "cronoq-state").toString();
    }
}
