package io.cronoq.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * A real Kafka broker for tests, as a JUnit 5 extension:
 * {@code @RegisterExtension static final KafkaBroker broker = KafkaBroker.create();}.
 * One single-node broker serves the whole test JVM: started on first use, stopped and its storage deleted when
 * the JUnit run ends. Tests isolate themselves with {@link #uniqueName(String)} topics, groups and app ids.
 * It is an in-JVM KRaft node, or a Testcontainers container with {@code -Dcronoq.test.broker=container} and a
 * Docker engine.
 */
public final class KafkaBroker implements BeforeAllCallback, BeforeEachCallback {

    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaBroker.class);
    private static final String STORE_KEY = "broker";
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);

    private final AtomicLong sequence = new AtomicLong();
    private volatile Running running;

    private KafkaBroker() {
    }

    /** A handle on the JVM's test broker; register it in a test class with {@code @RegisterExtension}. */
    public static KafkaBroker create() {
        return new KafkaBroker();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        attach(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Also covers registration on an instance field, where beforeAll is not called.
        attach(context);
    }

    private void attach(ExtensionContext context) {
        // The root store is shared by every test class of the run and closes the broker at its end. It is asked
        // each time, not once per handle: a rerun of failed tests in the same JVM (Surefire's
        // rerunFailingTestsCount) is a new run whose root store has no broker yet, while this handle (kept in a
        // test class's static field) would still point at the one the first run stopped.
        running = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(STORE_KEY, key -> Running.start(), Running.class);
    }

    /** The {@code bootstrap.servers} of the broker. */
    public String bootstrapServers() {
        return running().backend.bootstrapServers();
    }

    /** A name no other test in this JVM gets: {@code <prefix>-<n>-<random>}; legal for topics, groups and app ids. */
    public String uniqueName(String prefix) {
        return prefix + "-" + sequence.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Creates the topics (replication 1, broker-default configs) and waits until every partition has a leader. */
    public void createTopics(int partitions, String... names) {
        List<NewTopic> topics = new ArrayList<>();
        for (String name : names) {
            topics.add(new NewTopic(name, Optional.of(partitions), Optional.empty()));
        }
        createTopics(topics);
    }

    /** Creates one topic with the given configs (e.g. {@code cleanup.policy=compact}) and waits for its leaders. */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(configs)));
    }

    private void createTopics(List<NewTopic> topics) {
        Admin admin = adminClient();
        List<String> names = topics.stream().map(NewTopic::name).toList();
        await(admin.createTopics(topics).all(), "create topics " + names);
        awaitLeaders(admin, names);
    }

    /** Producer settings: bootstrap servers, {@code acks=all}, idempotence; add serializers (and a transactional id). */
    public Map<String, Object> producerProps() {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // A missing topic or broker fails the test in 30 s rather than after the one-minute default.
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        return props;
    }

    /** Consumer settings: the group, {@code read_committed}, from the earliest offset, no auto-commit; add deserializers. */
    public Map<String, Object> consumerProps(String groupId) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return props;
    }

    /** An admin client on the broker, shared and owned by the kit: use it, do not close it. */
    public Admin adminClient() {
        return running().admin();
    }

    private Running running() {
        Running current = running;
        if (current == null) {
            throw new IllegalStateException("The test broker is not started: register it as a JUnit extension, "
                    + "@RegisterExtension static final KafkaBroker broker = KafkaBroker.create();");
        }
        return current;
    }

    private static void awaitLeaders(Admin admin, List<String> names) {
        // The controller answers before the broker's metadata cache has the topics; clients that start right
        // away (Kafka Streams checks its source topics once) need them visible.
        long deadline = System.nanoTime() + ADMIN_TIMEOUT.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> descriptions =
                        admin.describeTopics(names).allTopicNames().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                boolean ready = descriptions.values().stream()
                        .flatMap(d -> d.partitions().stream())
                        .map(TopicPartitionInfo::leader)
                        .allMatch(leader -> leader != null && !leader.isEmpty());
                if (ready) {
                    return;
                }
            } catch (ExecutionException e) {
                log.debug("Topics {} not visible yet: {}", names, e.getCause().toString());
            } catch (TimeoutException e) {
                throw new KafkaException("Timed out describing topics " + names, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("Interrupted while waiting for topics " + names, e);
            }
            if (System.nanoTime() > deadline) {
                throw new KafkaException("Topics " + names + " have no leader after " + ADMIN_TIMEOUT);
            }
            pause();
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted while waiting for the broker", e);
        }
    }

    private static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException("Could not " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("Timed out trying to " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("Interrupted trying to " + what, e);
        }
    }

    /** The broker of this JUnit run and its shared admin client; closed by JUnit when the run ends. */
    private static final class Running implements AutoCloseable {
        private final BrokerBackend backend;
        private Admin admin;

        private Running(BrokerBackend backend) {
            this.backend = backend;
        }

        static Running start() {
            BrokerKind kind = BrokerKind.choose(System.getProperty(BrokerKind.PROPERTY),
                    () -> DockerClientFactory.instance().isDockerAvailable());
            if (kind == BrokerKind.IN_JVM && "container".equalsIgnoreCase(System.getProperty(BrokerKind.PROPERTY, ""))) {
                log.warn("-D{}=container was asked for but no Docker engine is available: using the in-JVM broker",
                        BrokerKind.PROPERTY);
            }
            long started = System.nanoTime();
            BrokerBackend backend = kind == BrokerKind.CONTAINER ? ContainerKafkaBroker.start() : EmbeddedKraftBroker.start();
            log.info("Test broker ready in {} ms: {}", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    backend.description());
            return new Running(backend);
        }

        synchronized Admin admin() {
            if (admin == null) {
                admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, backend.bootstrapServers()));
            }
            return admin;
        }

        @Override
        public synchronized void close() {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
            backend.close();
        }
    }

    @Override
    public String toString() {
        Running current = running;
        return "KafkaBroker[" + (current == null ? "not started" : current.backend.description()) + "]";
    }
}
