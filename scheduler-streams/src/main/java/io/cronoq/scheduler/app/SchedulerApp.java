package io.cronoq.scheduler.app;

import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.topology.OversizedOutputHandler;
import io.cronoq.scheduler.topology.IndexedTaskStore;
import io.cronoq.scheduler.topology.SchedulerTopology;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.zip.CRC32;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running scheduler instance: creates the topics it needs (idempotently), builds the topology
 * and runs it in Kafka Streams until closed. Several instances with the same application id share
 * the pools between them.
 */
public final class SchedulerApp implements AutoCloseable {

    /** The stream thread producers' first retry back-off (ms): see {@link #streamsProperties}. */
    static final int PRODUCER_RETRY_BACKOFF_MS = 10;
    /** How long (ms) at most a fetch of the restore consumer (restoring, or keeping a standby) waits for records. */
    static final int RESTORE_FETCH_WAIT_MS = 10;

    private static final Logger log = LoggerFactory.getLogger(SchedulerApp.class);

    private final SchedulerConfig config;
    private final SchemaRegistry registry;
    private final Topics topics;
    private final KafkaStreams streams;
    private final Credentials credentials;
    private final StaleTransactions staleTransactions;

    private SchedulerApp(SchedulerConfig config, SchemaRegistry registry, Topics topics, KafkaStreams streams,
                         Credentials credentials, StaleTransactions staleTransactions) {
        this.config = config;
        this.staleTransactions = staleTransactions;
        this.credentials = credentials;
        this.registry = registry;
        this.topics = topics;
        this.streams = streams;
    }

    /** Starts a scheduler instance without credentials (open: local development only). */
    public static SchedulerApp start(SchedulerConfig config) {
        return start(config, Credentials.none());
    }

    /**
     * Starts a scheduler instance; returns once Kafka Streams has been started (it may still be
     * rebalancing). {@code credentials} guard worker registrations here and HTTP calls in the gateway.
     */
    public static SchedulerApp start(SchedulerConfig config, Credentials credentials) {
        SchemaRegistry registry = registry(config);
        Topics topics = topics(config, registry);
        TopicSetup.ensure(config, topics);
        TopicSetup.registerSchemas(registry, topics);
        KafkaStreams streams = new KafkaStreams(SchedulerTopology.build(topics,
                new RegistrationGuard(credentials, config.getInt(SchedulerConfig.AUTH_SIGNATURE_MAX_AGE_MS)),
                config.timeRules(), config.tickInterval(), config.journalRecords(), config.assignmentRecords()),
                streamsProperties(config), new StreamClients());
        streams.setUncaughtExceptionHandler(new StreamThreadFailures(config.get(SchedulerConfig.STATE_DIR)));
        streams.start();
        StaleTransactions stale = null;
        if (StreamsConfig.EXACTLY_ONCE_V2.equals(config.get(SchedulerConfig.PROCESSING_GUARANTEE))) {
            Properties admin = new Properties();
            admin.putAll(KafkaClients.admin(config.kafkaClientSettings(),
                    "cronoq-stale-transactions-" + instanceId(config)));
            stale = StaleTransactions.start(admin, config.get(SchedulerConfig.APPLICATION_ID),
                    config.getInt(SchedulerConfig.TRANSACTION_TIMEOUT_MS));
        }
        log.info("Scheduler '{}' started against {} (topics prefixed '{}')", config.get(SchedulerConfig.APPLICATION_ID),
                config.get(SchedulerConfig.BOOTSTRAP_SERVERS), config.get(SchedulerConfig.TOPIC_PREFIX));
        if (credentials.isEmpty()) {
            log.warn("No [[auth.tokens]] configured: worker registrations are not verified (local development only)");
        } else {
            log.info("Worker registrations must be signed by one of {} credential(s)", credentials.all().size());
        }
        return new SchedulerApp(config, registry, topics, streams, credentials, stale);
    }

    /** The schema registry of this configuration: the external one at its URL, else the embedded topic-backed one. */
    public static SchemaRegistry registry(SchedulerConfig config) {
        Map<String, Object> settings = config.kafkaClientSettings();
        settings.put(SchemaRegistries.URL_CONFIG, config.get(SchedulerConfig.SCHEMA_REGISTRY_URL));
        settings.put(Topics.PREFIX_CONFIG, config.get(SchedulerConfig.TOPIC_PREFIX));
        return SchemaRegistries.fromConfig(settings);
    }

    /** The cronoq topics of this configuration's prefix, their serdes on {@code registry}. */
    public static Topics topics(SchedulerConfig config, SchemaRegistry registry) {
        return Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
    }

    /** The Kafka Streams properties of a scheduler instance with this configuration. */
    public static Properties streamsProperties(SchedulerConfig config) {
        Properties props = new Properties();
        // Every common setting, unfiltered: Kafka Streams hands its prefixed keys (producer.*, consumer.*) on itself.
        props.putAll(config.kafkaClientSettings());
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, config.get(SchedulerConfig.APPLICATION_ID));
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, config.get(SchedulerConfig.PROCESSING_GUARANTEE));
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.getInt(SchedulerConfig.COMMIT_INTERVAL_MS));
        // The stream thread commits only between two polls of its consumer, and a poll waits up to poll.ms (Kafka
        // Streams' default: 100 ms) for input. An assignment decided just after a commit is seen only once the next
        // one commits, so when the input paused (the last tasks of a burst, a quiet pool) it waited for the poll:
        // the final second of a 5,000 tasks/s run had a p99 of 121-127 ms against 42-84 ms for each 10 s before
        // it. Waiting at most one commit interval bounds that delay by the interval; an idle thread then wakes
        // that often, for a poll that finds nothing.
        props.putIfAbsent(StreamsConfig.POLL_MS_CONFIG, config.getInt(SchedulerConfig.COMMIT_INTERVAL_MS));
        props.put(StreamsConfig.STATE_DIR_CONFIG, config.get(SchedulerConfig.STATE_DIR));
        props.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, config.getInt(SchedulerConfig.STANDBY_REPLICAS));
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.getInt(SchedulerConfig.STREAM_THREADS));
        props.put(IndexedTaskStore.IN_MEMORY_CONFIG, config.getInt(SchedulerConfig.INDEX_MEMORY_ENTRIES));
        // Failover. A crashed instance is noticed when its session times out: only then do its pools move to
        // another instance (a standby replica there has their state warm). Static membership lets a restarted
        // instance rejoin under its old id and get its pools back without a rebalance of the others.
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceId(config));
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
                config.getInt(SchedulerConfig.SESSION_TIMEOUT_MS));
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                config.getInt(SchedulerConfig.HEARTBEAT_INTERVAL_MS));
        // A planned move (a restart, a scale-out) must not stall a pool. A pool moves only to an instance whose
        // copy of its state is little behind (cronoq.acceptable.recovery.lag), as the pool waits while the new
        // owner restores the rest; one further behind (its state wiped after a crash, as exactly-once does) warms
        // a copy up first while the owner goes on, and takes the pool at the first probing rebalance after it
        // caught up. With Kafka Streams' own defaults (10,000 records behind counts as caught up, a probe every
        // 10 min), a restarted instance took pools it then restored for seconds, or got none back for minutes.
        props.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, config.getInt(SchedulerConfig.ACCEPTABLE_RECOVERY_LAG));
        props.put(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG,
                config.getInt(SchedulerConfig.PROBING_REBALANCE_INTERVAL_MS));
        // The instance taking over reads the crashed one's outputs and offsets only once its open transaction is
        // aborted: when it times out (Kafka Streams' default is 10 s), by the brokers' sweep or StaleTransactions.
        props.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
                config.getInt(SchedulerConfig.TRANSACTION_TIMEOUT_MS));
        String server = config.get(SchedulerConfig.APPLICATION_SERVER);
        if (!server.isBlank()) {
            props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, server);
        }
        props.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, OversizedOutputHandler.class);
        // After a broker's restart. Every client of the instance (its consumers, producers and admin) tries an
        // unreachable broker again, and refreshes its metadata, within KafkaClients.BACKOFF_MAX_MS rather than
        // Kafka's 1 s, so it is back soon after the broker serves. The group no longer knows the instance then (its
        // session ran out while the broker started), so its tasks are closed and opened again, and each is checked
        // against its changelogs before it runs: the restore consumer's fetch of a changelog with nothing left to
        // restore (only an aborted transaction's records) waited up to fetch.max.wait.ms, 500 ms per task, one task
        // after the other. It waits at most RESTORE_FETCH_WAIT_MS: a standby's restore consumer then fetches that
        // often while its changelogs are idle (a busy changelog answers at once anyway), a small cost to a broker.
        KafkaClients.shortBackoffs(props);
        props.putIfAbsent(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG),
                RESTORE_FETCH_WAIT_MS);
        producerDefault(props, ProducerConfig.LINGER_MS_CONFIG, lingerMs(config));
        // The stream thread's producer retries soon. Under the brokers' second version of transactions, a batch
        // sent while the coordinator still completes the previous transaction is refused with
        // CONCURRENT_TRANSACTIONS, and the batches pipelined behind it then with OUT_OF_ORDER_SEQUENCE_NUMBER;
        // each is retried after retry.backoff.ms, doubling up to retry.backoff.max.ms. With Kafka's 100 ms the
        // commit's flush waited 279-333 ms for them (profiled bench runs), and every task of that commit with it.
        // The coordinator is done within milliseconds; a broker that stays away still backs the retries off to
        // retry.backoff.max.ms (KafkaClients.BACKOFF_MAX_MS, above).
        producerDefault(props, ProducerConfig.RETRY_BACKOFF_MS_CONFIG, PRODUCER_RETRY_BACKOFF_MS);
        // No task idling: a task processes what it has fetched without waiting for its other input partitions.
        // Idling costs stream-thread CPU (Kafka Streams formats its "waiting for data" message eagerly for every
        // empty input partition on every record: 16-19% of the thread in profiled drains), and the order across
        // the input topics no longer matters: a leave read before the reports its worker sent first loses nothing
        // (the leave grace, cronoq.leave.grace.ms); a submission and its cancellation share a topic and a
        // partition; a drain or a heartbeat changes nothing a report decides. (A worker registering again under
        // its id before its previous generation's reports are read still loses those attempts: docs/time.md.)
        if (!props.containsKey(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG)) {
            props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
        }
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // Under exactly-once a task closed dirty used to lose its stores: Kafka Streams wiped them, as they might
        // hold writes of an aborted transaction, and restored them from the changelogs' start. A broker restart
        // closes every task dirty (the group no longer knows the member, so its commit is refused), and a crash
        // does too. Transactional stores keep a transaction's writes apart until it commits, so a dirty close
        // keeps what was committed: after a broker restart the first assignment came 1.4-2.5 s (median 1.8, five
        // runs) after the broker served, against 1.5-2.9 s (median 2.3) with the wipe and full restore.
        // Interactive queries (the gateway's reads) keep Kafka's default isolation, read-uncommitted: they still
        // see the writes of the open transaction, as before.
        if (StreamsConfig.EXACTLY_ONCE_V2.equals(config.get(SchedulerConfig.PROCESSING_GUARANTEE))) {
            props.putIfAbsent(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
        }
        return props;
    }

    /** Sets a setting of the stream threads' producers, unless the configuration set it, prefixed or not. */
    private static void producerDefault(Properties props, String key, Object value) {
        if (!props.containsKey(key) && !props.containsKey(StreamsConfig.producerPrefix(key))) {
            props.put(StreamsConfig.producerPrefix(key), value);
        }
    }

    /**
     * This instance's static membership id: {@link SchedulerConfig#INSTANCE_ID} when set, else the host name
     * and a digest of the absolute state directory, the same on every start of this instance on this host
     * (and distinct for two instances of one host, which cannot share a state directory).
     */
    public static String instanceId(SchedulerConfig config) {
        String configured = config.get(SchedulerConfig.INSTANCE_ID).trim();
        if (!configured.isEmpty()) {
            return configured;
        }
        String stateDir = Path.of(config.get(SchedulerConfig.STATE_DIR)).toAbsolutePath().normalize()
                .toString();
        CRC32 crc = new CRC32();
        crc.update(stateDir.getBytes(StandardCharsets.UTF_8));
        return hostName() + "-" + String.format("%08x", crc.getValue());
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /**
     * How long the stream thread's producer holds records back to batch them. Under exactly-once nobody sees a
     * record before its transaction commits, and the commit flushes whatever is held, so holding records up to
     * 10 ms cost no measurable latency (cronoq bench at 200 tasks/s, four runs each on a loaded 2-core machine:
     * p50 30-53 ms against 33-79 ms with 0, p99 97-246 ms against 129-369 ms) and sends fewer, larger produce
     * requests: in drains of 20,000 tasks the
     * producer's network thread spent 0.07-0.09 ms of CPU per task instead of 0.13-0.16, the broker's request
     * threads 0.29-0.33 instead of 0.36-0.53. Under at-least-once a record is visible once written: send at once.
     */
    static int lingerMs(SchedulerConfig config) {
        return StreamsConfig.EXACTLY_ONCE_V2.equals(config.get(SchedulerConfig.PROCESSING_GUARANTEE)) ? 10 : 0;
    }

    public KafkaStreams streams() {
        return streams;
    }

    public Topics topics() {
        return topics;
    }

    /** The credentials this instance checks (empty: open). */
    public Credentials credentials() {
        return credentials;
    }

    public SchedulerConfig config() {
        return config;
    }

    /**
     * Stops cleanly and leaves the group at once, so another instance takes this one's pools over now rather
     * than after the session timeout (a static member otherwise stays in the group when it closes).
     */
    @Override
    public void close() {
        if (staleTransactions != null) {
            staleTransactions.close();
        }
        streams.close(CloseOptions.timeout(Duration.ofSeconds(30))
                .withGroupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
        try {
            registry.close();
        } catch (Exception e) {
            log.warn("Closing the schema registry failed", e);
        }
    }

    /** Runs one scheduler instance with settings from {@code cronoq.*} system properties until the JVM stops. */
    public static void main(String[] args) {
        Map<String, String> overrides = new java.util.HashMap<>();
        System.getProperties().forEach((k, v) -> {
            if (k.toString().startsWith("cronoq.")) {
                overrides.put(k.toString(), v.toString());
            }
        });
        SchedulerApp app = start(SchedulerConfig.of(overrides));
        Runtime.getRuntime().addShutdownHook(new Thread(app::close, "cronoq-shutdown"));
    }
}
