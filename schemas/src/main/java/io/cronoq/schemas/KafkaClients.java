package io.cronoq.schemas;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka client settings cronoq's parts use, in one place. Each takes the user's common settings
 * (bootstrap servers, security, tuning), keeps only those its kind of client knows (so a producer
 * setting in a shared map is not logged as unused by a consumer) and sets what cronoq's guarantees
 * rest on over whatever the common settings said; the producer refuses, with a message that says
 * which to remove, a common setting that would weaken its durability.
 */
public final class KafkaClients {

    /**
     * How long at most (ms) a client waits before it tries again a broker it could not reach
     * ({@code reconnect.backoff.max.ms}), and before it retries a request or a metadata refresh
     * ({@code retry.backoff.max.ms}), unless the common settings say otherwise. Kafka's default for both is 1 s:
     * after a broker's restart each client of a scheduler and of its workers came back up to 1.2 s (the back-off
     * and its jitter) after the broker served, a producer only at its next metadata refresh, each on its own
     * draw, and the first assignment waited for the slowest of them. A refused connection to a down broker costs
     * both sides next to nothing, so cronoq's clients try four times as often.
     */
    public static final int BACKOFF_MAX_MS = 250;

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private KafkaClients() {}

    /**
     * A producer whose acknowledged sends are durable and never written twice: {@code acks=all} and
     * idempotence, batching a few milliseconds unless the common settings say otherwise.
     *
     * @throws IllegalArgumentException when {@code common} sets weaker acks or turns idempotence off
     */
    public static Map<String, Object> durableProducer(Map<String, ?> common, String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        config.putAll(known(common, ProducerConfig.configNames()));
        shortBackoffs(config);
        Object acks = config.get(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !acks.toString().equals("all") && !acks.toString().equals("-1")) {
            throw new IllegalArgumentException("acks=" + acks + " would let an event be lost after its send "
                    + "completed; cronoq always uses acks=all, remove the setting");
        }
        Object idempotence = config.get(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idempotence != null && !Boolean.parseBoolean(idempotence.toString())) {
            throw new IllegalArgumentException("enable.idempotence=false would let a retried send write an event "
                    + "twice; cronoq always enables it, remove the setting");
        }
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        return config;
    }

    /**
     * A consumer that reads a log by position, outside any consumer group, and sees only committed
     * records (the scheduler writes in transactions): no group (nor static member id), no offset commits, no topic created
     * by reading, from the earliest record unless positioned.
     */
    public static Map<String, Object> logReader(Map<String, ?> common, String clientId) {
        Map<String, Object> config = committedReader(common, clientId, "earliest");
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return config;
    }

    /** A consumer of committed records only, whose position is its own business (no automatic commits). */
    private static Map<String, Object> committedReader(Map<String, ?> common, String clientId,
                                                       String offsetReset) {
        Map<String, Object> config = known(common, ConsumerConfig.configNames());
        shortBackoffs(config);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, offsetReset);
        return config;
    }

    /** An admin client with the common settings an admin client knows. */
    public static Map<String, Object> admin(Map<String, ?> common, String clientId) {
        Map<String, Object> config = known(common, AdminClientConfig.configNames());
        shortBackoffs(config);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return config;
    }

    /** Just the bootstrap servers, for a part started with nothing but an address. */
    public static Map<String, Object> bootstrap(String servers) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        return config;
    }

    /**
     * {@code name} and a number no other client of this JVM was given here: for a part that runs
     * several clients of one kind at once (Kafka registers each client id once per JVM).
     */
    public static String uniqueId(String name) {
        return name + "-" + SEQUENCE.incrementAndGet();
    }

    /**
     * Caps both back-offs at {@link #BACKOFF_MAX_MS} in a client's settings, or in Kafka Streams' settings (which it
     * hands to all its clients), unless they set the cap or the first back-off themselves: a first back-off set
     * longer than the cap would otherwise be cut down to it, so Kafka's own handling applies then.
     */
    public static void shortBackoffs(Map<? super String, Object> config) {
        if (!config.containsKey(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG)
                && !config.containsKey(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG)) {
            config.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, BACKOFF_MAX_MS);
        }
        if (!config.containsKey(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG)
                && !config.containsKey(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG)) {
            config.put(CommonClientConfigs.RETRY_BACKOFF_MAX_MS_CONFIG, BACKOFF_MAX_MS);
        }
    }

    private static Map<String, Object> known(Map<String, ?> common, Set<String> names) {
        Map<String, Object> config = new HashMap<>();
        common.forEach((k, v) -> {
            // SASL, SSL and security keys are kept even where this Kafka version does not list them (a login
            // module's or a newer client's extras); a key set to null counts as unset.
            if (v != null && (names.contains(k) || k.startsWith("sasl.") || k.startsWith("ssl.")
                    || k.startsWith("security."))) {
                config.put(k, v);
            }
        });
        return config;
    }
}
