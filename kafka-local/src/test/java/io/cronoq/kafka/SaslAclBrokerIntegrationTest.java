package io.cronoq.kafka;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ACLs of {@link CronoqAcls} on a real broker with SASL/PLAIN and KRaft's StandardAuthorizer:
 * each principal can write where its role writes and nowhere else.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SaslAclBrokerIntegrationTest {

    private static final Map<String, String> USERS = Map.of(
            "admin", "admin-secret", "scheduler", "scheduler-secret", "submitter", "submitter-secret",
            "worker", "worker-secret");
    private static final String PREFIX = "cronoq.";

    private static LocalKafka kafka;

    @BeforeAll
    static void start() throws Exception {
        int port = LocalKafka.freePort();
        int controllerPort = LocalKafka.freePort();
        Path dir = Files.createTempDirectory("cronoq-sasl");
        kafka = LocalKafka.start(dir, port, controllerPort,
                LocalKafka.saslPlainProperties(port, controllerPort, "admin", USERS));
        try (Admin admin = Admin.create(client("admin"))) {
            admin.createTopics(List.of("submissions", "workers", "completions", "assignments", "journal").stream()
                    .map(t -> new NewTopic(PREFIX + t, 1, (short) 1)).toList()).all().get();
            admin.createAcls(new CronoqAcls(PREFIX, "cronoq-scheduler", "User:scheduler", "User:submitter",
                    "User:worker").bindings()).all().get();
        }
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static Properties client(String user) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        p.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
        p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"" + user + "\" password=\"" + USERS.get(user) + "\";");
        return p;
    }

    private static void send(String user, String topic) throws Exception {
        Properties p = client(user);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(PREFIX + topic, "pool", "event")).get(30, TimeUnit.SECONDS);
        }
    }

    private static Throwable rootOf(Throwable t) {
        return t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
    }

    @Test
    void submitterWritesSubmissionsButNotTheWorkersTopic() throws Exception {
        send("submitter", "submissions");

        assertThatThrownBy(() -> send("submitter", "workers"))
                .extracting(SaslAclBrokerIntegrationTest::rootOf).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void workerWritesWorkersAndCompletionsButNotAssignmentsOrTheJournal() throws Exception {
        send("worker", "workers");
        send("worker", "completions");

        assertThatThrownBy(() -> send("worker", "assignments"))
                .extracting(SaslAclBrokerIntegrationTest::rootOf).isInstanceOf(TopicAuthorizationException.class);
        assertThatThrownBy(() -> send("worker", "journal"))
                .extracting(SaslAclBrokerIntegrationTest::rootOf).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void onlyTheSchedulerWritesAssignmentsAndTheJournal() throws Exception {
        send("scheduler", "assignments");
        send("scheduler", "journal");

        assertThatThrownBy(() -> send("submitter", "assignments"))
                .extracting(SaslAclBrokerIntegrationTest::rootOf).isInstanceOf(TopicAuthorizationException.class);
    }
}
