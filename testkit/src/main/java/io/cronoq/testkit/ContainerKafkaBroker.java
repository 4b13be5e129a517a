package io.cronoq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A single-node Kafka in a Testcontainers container, configured like the in-JVM one (replication 1 for the
 * internal topics, no initial rebalance delay). Needs a Docker engine.
 */
final class ContainerKafkaBroker implements BrokerBackend {

    /** System property naming the image; defaults to {@code apache/kafka:<kafka-clients version>}. */
    static final String IMAGE_PROPERTY = "cronoq.test.broker.image";

    private static final Logger log = LoggerFactory.getLogger(ContainerKafkaBroker.class);

    private final KafkaContainer container;

    private ContainerKafkaBroker(KafkaContainer container) {
        this.container = container;
    }

    static ContainerKafkaBroker start() {
        String image = System.getProperty(IMAGE_PROPERTY, "apache/kafka:" + kafkaClientsVersion());
        KafkaContainer container = new KafkaContainer(DockerImageName.parse(image))
                .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR", "1")
                .withEnv("KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "1")
                .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
        container.start();
        log.info("Kafka container {} up at {}", image, container.getBootstrapServers());
        return new ContainerKafkaBroker(container);
    }

    /** The version of the kafka-clients on the classpath, so the container matches the clients under test. */
    private static String kafkaClientsVersion() {
        try (InputStream in = ContainerKafkaBroker.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) {
                return "latest";
            }
            Properties props = new Properties();
            props.load(in);
            return props.getProperty("version", "latest");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the kafka-clients version", e);
        }
    }

    @Override
    public String bootstrapServers() {
        return container.getBootstrapServers();
    }

    @Override
    public String description() {
        return "container " + container.getDockerImageName() + " at " + bootstrapServers();
    }

    @Override
    public void close() {
        container.stop();
    }
}
