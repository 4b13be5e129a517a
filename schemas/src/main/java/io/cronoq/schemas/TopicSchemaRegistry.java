package io.cronoq.schemas;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded schema registry: schemas kept in a compacted, single-partition Kafka topic (default
 * {@code cronoq._schemas}), so any process that reaches the cluster resolves any id without another service.
 * Ids are {@link SchemaIds#idOf}, so processes agree on them without coordination; a subject's versions are its
 * schemas in order of first appearance in the topic. Registration waits for the broker's ack; an unknown id is
 * looked up by reading the topic to its end. Thread-safe; close it to release its Kafka clients.
 *
 * <p>Known limit: if two processes register the same new schema under the same subject at the same moment, the
 * topic holds it twice and compaction later keeps only the second copy, which can renumber that subject's
 * versions (never the ids).
 */
public final class TopicSchemaRegistry implements SchemaRegistry {

    private static final Logger log = LoggerFactory.getLogger(TopicSchemaRegistry.class);
    private static final Duration POLL = Duration.ofMillis(100);

    private final String topic;
    private final TopicPartition partition;
    private final Duration timeout;
    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;
    private final SchemaCatalog catalog = new SchemaCatalog();
    private final ObjectMapper json = new ObjectMapper();
    private final Object readLock = new Object();

    private TopicSchemaRegistry(String topic, Duration timeout, KafkaProducer<String, String> producer,
                                KafkaConsumer<String, String> consumer) {
        this.topic = topic;
        this.partition = new TopicPartition(topic, 0);
        this.timeout = timeout;
        this.producer = producer;
        this.consumer = consumer;
    }

    /**
     * Connects to the cluster in {@code kafkaConfig} ({@code bootstrap.servers} plus any client security
     * settings; other keys are ignored), creates the topic if missing and reads it.
     */
    public static TopicSchemaRegistry create(Map<String, ?> kafkaConfig, String topic, Duration timeout) {
        if (kafkaConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
            throw new IllegalArgumentException("The embedded schema registry needs bootstrap.servers (or set "
                    + "schema.registry.url to use an external registry)");
        }
        ensureTopic(kafkaConfig, topic, timeout);
        KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(kafkaConfig, timeout),
                new StringSerializer(), new StringSerializer());
        KafkaConsumer<String, String> consumer;
        try {
            consumer = new KafkaConsumer<>(consumerConfig(kafkaConfig), new StringDeserializer(),
                    new StringDeserializer());
        } catch (KafkaException e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        TopicSchemaRegistry registry = new TopicSchemaRegistry(topic, timeout, producer, consumer);
        try {
            consumer.assign(List.of(registry.partition));
            consumer.seekToBeginning(List.of(registry.partition));
            registry.readToEnd();
        } catch (RuntimeException e) {
            registry.close();
            throw e;
        }
        log.info("Schema registry on topic {}: {} subjects loaded", topic, registry.catalog.subjects().size());
        return registry;
    }

    /** Connects with a 30 s timeout to the topic {@code topic}. */
    public static TopicSchemaRegistry create(Map<String, ?> kafkaConfig, String topic) {
        return create(kafkaConfig, topic, Duration.ofSeconds(30));
    }

    /** The topic the schemas are kept in. */
    public String topic() {
        return topic;
    }

    @Override
    public int register(String subject, Schema schema) {
        int id = SchemaIds.idOf(schema);
        if (catalog.contains(subject, id)) {
            return id;
        }
        synchronized (this) {
            readToEnd();
            if (catalog.contains(subject, id)) {
                return id;
            }
            catalog.conflictingText(id, schema).ifPresent(known -> {
                throw new SchemaRegistryException("Schema id collision in " + topic + ": id " + id + " of "
                        + schema.getFullName() + " is already bound to another schema. Change the new schema's doc "
                        + "text by a character to change its fingerprint, and report it.");
            });
            RecordMetadata written = await(producer.send(
                    new ProducerRecord<>(topic, 0, key(subject, id), value(subject, id, schema))),
                    "write schema " + schema.getFullName() + " under subject '" + subject + "'");
            log.info("Registered {} as id {} under subject '{}' ({} offset {})", schema.getFullName(), id, subject,
                    topic, written.offset());
            readToEnd();
        }
        return id;
    }

    @Override
    public Optional<Schema> byId(int id) {
        Optional<Schema> known = catalog.byId(id);
        if (known.isPresent()) {
            return known;
        }
        readToEnd();
        return catalog.byId(id);
    }

    @Override
    public List<String> subjects() {
        readToEnd();
        return catalog.subjects();
    }

    @Override
    public List<Integer> versions(String subject) {
        readToEnd();
        return catalog.versions(subject);
    }

    @Override
    public Optional<RegisteredSchema> version(String subject, int version) {
        readToEnd();
        return catalog.version(subject, version);
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        readToEnd();
        return catalog.latest(subject);
    }

    /** Reads the topic up to its current end, so every schema acknowledged before this call is known. */
    private void readToEnd() {
        synchronized (readLock) {
            long deadline = System.nanoTime() + timeout.toNanos();
            try {
                long end = consumer.endOffsets(List.of(partition), timeout).getOrDefault(partition, 0L);
                while (consumer.position(partition, timeout) < end) {
                    if (System.nanoTime() > deadline) {
                        throw new SchemaRegistryException("Timed out after " + timeout + " reading the schema topic "
                                + topic + " to offset " + end + "; is the cluster healthy?");
                    }
                    for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
                        apply(record);
                    }
                }
            } catch (KafkaException e) {
                throw new SchemaRegistryException("Cannot read the schema topic " + topic + ": " + e.getMessage(), e);
            }
        }
    }

    private void apply(ConsumerRecord<String, String> record) {
        if (record.value() == null) {
            return;
        }
        try {
            JsonNode node = json.readTree(record.value());
            String subject = node.path("subject").asText(null);
            int id = node.path("id").asInt(-1);
            Schema schema = new Schema.Parser().parse(node.path("schema").asText());
            if (subject == null || id != SchemaIds.idOf(schema)) {
                log.warn("Skipping schema record at {} offset {}: its id {} does not match its schema (written by "
                        + "something other than cronoq?)", topic, record.offset(), id);
                return;
            }
            catalog.add(subject, id, schema);
        } catch (JsonProcessingException | SchemaParseException e) {
            log.warn("Skipping unreadable schema record at {} offset {}: {}", topic, record.offset(), e.toString());
        } catch (SchemaRegistryException e) {
            log.error("Skipping schema record at {} offset {}: {}", topic, record.offset(), e.getMessage());
        }
    }

    private String key(String subject, int id) {
        ObjectNode node = json.createObjectNode().put("subject", subject).put("id", id);
        return node.toString();
    }

    private String value(String subject, int id, Schema schema) {
        ObjectNode node = json.createObjectNode().put("subject", subject).put("id", id)
                .put("schema", SchemaIds.text(schema));
        return node.toString();
    }

    private static void ensureTopic(Map<String, ?> kafkaConfig, String topic, Duration timeout) {
        try (Admin admin = Admin.create(KafkaClients.admin(kafkaConfig, KafkaClients.uniqueId("cronoq-schema-registry")))) {
            NewTopic newTopic = new NewTopic(topic, Optional.of(1), Optional.empty())
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            try {
                admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                log.info("Created the schema topic {} (1 partition, compacted)", topic);
                return;
            } catch (ExecutionException e) {
                // Without CREATE permission the create fails even when the topic is there; then use it.
                boolean exists = e.getCause() instanceof TopicExistsException;
                if (!checkPartitions(admin, topic, timeout) && !exists) {
                    throw new SchemaRegistryException("Cannot create the schema topic " + topic + ": "
                            + e.getCause().getMessage() + ". Create it yourself (1 partition, cleanup.policy=compact) "
                            + "or grant this client CREATE on it.", e.getCause());
                }
            }
        } catch (TimeoutException e) {
            throw new SchemaRegistryException("Timed out after " + timeout + " setting up the schema topic " + topic
                    + "; check bootstrap.servers and that the cluster is up.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("Interrupted while setting up the schema topic " + topic, e);
        }
    }

    /**
     * Checks that a topic that existed already has one partition (versions are numbered in topic order).
     * Returns false if the brokers do not list it (yet: a creator a moment ago made it right).
     */
    private static boolean checkPartitions(Admin admin, String topic, Duration timeout)
            throws InterruptedException, TimeoutException {
        TopicDescription description;
        try {
            description = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                log.debug("Schema topic {} is not visible yet; skipping its partition check", topic);
                return false;
            }
            throw new SchemaRegistryException("Cannot describe the schema topic " + topic + ": "
                    + e.getCause().getMessage(), e.getCause());
        }
        if (description.partitions().size() != 1) {
            throw new SchemaRegistryException("The schema topic " + topic + " has "
                    + description.partitions().size() + " partitions; it needs exactly 1, because versions are "
                    + "numbered in topic order. Recreate it with 1 partition and cleanup.policy=compact.");
        }
        return true;
    }

    private static Map<String, Object> producerConfig(Map<String, ?> kafkaConfig, Duration timeout) {
        Map<String, Object> config = KafkaClients.durableProducer(kafkaConfig,
                KafkaClients.uniqueId("cronoq-schema-registry"));
        // A registration is one record, awaited: not part of any transaction, sent at once, and a send
        // blocked on metadata fails within the registry's timeout.
        config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
        return config;
    }

    private static Map<String, Object> consumerConfig(Map<String, ?> kafkaConfig) {
        // Read by position, outside any group, from the beginning; the topic is created on purpose, compacted
        // (an auto-created one would be neither).
        Map<String, Object> config = KafkaClients.logReader(kafkaConfig,
                KafkaClients.uniqueId("cronoq-schema-registry"));
        // Registrations are written outside transactions, so there is nothing to wait for a commit of.
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        // A broker answers one request of a connection at a time, so a fetch parked at the topic's end (for the
        // default half second) would hold up the end-offset lookup that starts the next read to the end: every
        // read after a poll (a registration after the first, a lookup of an unknown id, a listing) would wait
        // for it. The registry polls only while it reads, in short bursts.
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        return config;
    }

    private <T> T await(Future<T> future, String what) {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SchemaRegistryException("Timed out after " + timeout + " trying to " + what
                    + "; is the cluster healthy?", e);
        } catch (ExecutionException e) {
            throw new SchemaRegistryException("Cannot " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("Interrupted trying to " + what, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        synchronized (readLock) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    @Override
    public String toString() {
        return "TopicSchemaRegistry[" + topic + "]";
    }
}
