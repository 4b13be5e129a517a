package io.cronoq.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A transaction left open by a stream thread of this application (as by an instance killed mid-commit) is
 * aborted once it outlives the timeout, well before the brokers' own sweep would; one of another application
 * whose id merely starts alike, and a short one, are left alone.
 */
// Alone: it bounds when the abandoned transaction is aborted, a time other classes running beside it would stretch.
@Isolated
@Tag("integration")
class StaleTransactionsIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @Test
    void anAbandonedTransactionOfThisApplicationIsAbortedOnceItOutlivesTheTimeout() throws Exception {
        String app = broker.uniqueName("stale");
        String topic = broker.uniqueName("stale-out");
        broker.createTopics(1, topic);
        String ours = app + "-" + UUID.randomUUID() + "-1";
        String others = app + "-2-" + UUID.randomUUID() + "-1";

        try (KafkaProducer<String, String> abandoned = open(ours, topic);
             KafkaProducer<String, String> foreign = open(others, topic)) {
            Properties admin = new Properties();
            admin.put("bootstrap.servers", broker.bootstrapServers());
            long started = System.nanoTime();
            try (StaleTransactions stale = StaleTransactions.start(admin, app, 2000)) {
                await("the abandoned transaction is aborted").atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(100)).until(() -> !ongoing().contains(ours));
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                assertThat(tookMs).as("aborted after the 2 s timeout, at the next check").isBetween(1900L, 6000L);
                assertThat(ongoing()).as("another application's transaction").contains(others);
            }
            // Its producer was fenced: it can no longer commit what it wrote.
            assertThatThrownBy(abandoned::commitTransaction).isInstanceOf(KafkaException.class);
            foreign.commitTransaction();
        }
    }

    private static KafkaProducer<String, String> open(String transactionalId, String topic) throws Exception {
        Map<String, Object> props = broker.producerProps();
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000); // the brokers would not abort it for a minute
        KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "k", "v")).get();
        return producer;
    }

    private static List<String> ongoing() throws Exception {
        return broker.adminClient().listTransactions(new ListTransactionsOptions()
                        .filterStates(List.of(TransactionState.ONGOING))).all().get().stream()
                .map(TransactionListing::transactionalId).toList();
    }
}
