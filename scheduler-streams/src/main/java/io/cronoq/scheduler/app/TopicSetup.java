package io.cronoq.scheduler.app;

import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.TopicSpec;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the scheduler's topics when they are missing (idempotent) and checks the one thing that
 * must hold for correctness: the three inputs are co-partitioned (same partition count).
 */
public final class TopicSetup {

    private static final Logger log = LoggerFactory.getLogger(TopicSetup.class);

    private static final Duration LEADER_TIMEOUT = Duration.ofSeconds(30);

    private TopicSetup() {}

    /** Creates what is missing; fails with a clear message when the inputs are not co-partitioned. */
    public static void ensure(SchedulerConfig config, Topics topics) {
        Map<String, NewTopic> wanted = new LinkedHashMap<>();
        for (TopicSpec spec : topics.all(config.getInt(SchedulerConfig.PARTITIONS))) {
            wanted.put(spec.name(), spec.toNewTopic());
        }

        try (Admin admin = Admin.create(KafkaClients.admin(config.kafkaClientSettings(), "cronoq-topic-setup"))) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            wanted.forEach((name, topic) -> {
                if (!existing.contains(name)) {
                    missing.add(topic);
                }
            });
            if (!missing.isEmpty()) {
                create(admin, missing);
                awaitLeaders(admin, missing.stream().map(NewTopic::name).toList());
                log.info("Created topics {}", missing.stream().map(NewTopic::name).toList());
            }
            checkCoPartitioned(admin, inputs(topics));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not create or describe the cronoq topics at "
                    + config.get(SchedulerConfig.BOOTSTRAP_SERVERS) + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * Registers the value schema of every cronoq topic under its subject ({@code <topic>-value}), so a
     * producer in any language can fetch the schema it must write before any Java process has written.
     */
    public static void registerSchemas(SchemaRegistry registry, Topics topics) {
        for (Topic<String, ?> topic : List.of(topics.submissions(), topics.workers(), topics.completions(),
                topics.dependencies(), topics.assignments(), topics.journal(), topics.deadLetters())) {
            if (topic.valueSerde() instanceof AvroSerde<?> serde) {
                registry.register(serde.subject(topic.name()), serde.schema());
            }
        }
    }

    private static void create(Admin admin, List<NewTopic> topics) throws InterruptedException, ExecutionException {
        try {
            admin.createTopics(topics).all().get();
        } catch (ExecutionException e) {
            // Another instance created them between our listing and our request: that is what we wanted.
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private static void checkCoPartitioned(Admin admin, List<String> inputs) throws InterruptedException, ExecutionException {
        Map<String, TopicDescription> described = awaitLeaders(admin, inputs);
        Map<String, Integer> counts = new LinkedHashMap<>();
        inputs.forEach(name -> counts.put(name, described.get(name).partitions().size()));
        if (counts.values().stream().distinct().count() > 1) {
            throw new IllegalStateException("the input topics must have the same number of partitions, so that all of "
                    + "a pool's events meet in one task; found " + counts + ". Recreate them with one count.");
        }
    }

    /**
     * Describes the topics once every partition has a leader: a topic just created may not be served yet
     * ("This server does not host this topic-partition"), and Kafka Streams should not start before it is.
     */
    private static Map<String, TopicDescription> awaitLeaders(Admin admin, List<String> topics)
            throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + LEADER_TIMEOUT.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames().get();
                boolean led = described.values().stream()
                        .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null));
                if (led) {
                    return described;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the topics " + topics + " have no leader after "
                        + LEADER_TIMEOUT.toSeconds() + " s; is the Kafka cluster healthy?");
            }
            Thread.sleep(100);
        }
    }

    private static List<String> inputs(Topics topics) {
        return List.of(topics.submissions().name(), topics.workers().name(), topics.completions().name(),
                topics.dependencies().name());
    }
}
