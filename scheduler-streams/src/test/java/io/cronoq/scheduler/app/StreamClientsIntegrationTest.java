package io.cronoq.scheduler.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scheduler's Kafka clients on a real broker: a transactional producer whose {@code flush()} leaves the
 * waiting to its commit still commits every record it sent, with their callbacks run first, and commits none
 * when one of them failed; a producer without a transaction flushes as Kafka's does.
 */
@Tag("integration")
class StreamClientsIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private final StreamClients clients = new StreamClients();

    @Test
    void aCommitCoversEveryRecordSentAndRunsTheirCallbacksBeforeItReturns() {
        String topic = broker.uniqueName("flush-at-commit");
        broker.createTopics(3, topic);
        AtomicInteger acknowledged = new AtomicInteger();
        try (Producer<byte[], byte[]> producer = clients.getProducer(transactional("commit-covers"))) {
            assertThat(producer).isInstanceOf(StreamClients.FlushAtCommit.class);
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 500; i++) {
                producer.send(record(topic, "r" + i), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                    }
                });
            }
            producer.flush();
            producer.commitTransaction();
            // What Kafka Streams reads right after the commit (the changelog offsets of its stores) is complete.
            assertThat(acknowledged).as("callbacks run when the commit returns").hasValue(500);
        }
        assertThat(readCommitted(topic, 500)).hasSize(500);
    }

    @Test
    void aRecordTheBrokerRefusesFailsTheCommitAndNoneOfTheTransactionIsRead() {
        String accepted = broker.uniqueName("flush-at-commit-ok");
        String strict = broker.uniqueName("flush-at-commit-strict");
        broker.createTopics(1, accepted);
        broker.createTopic(strict, 1, Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1024"));
        AtomicInteger called = new AtomicInteger();
        AtomicReference<Exception> refusal = new AtomicReference<>();
        try (Producer<byte[], byte[]> producer = clients.getProducer(transactional("commit-refused"))) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++) {
                producer.send(record(accepted, "small-" + i), (metadata, error) -> called.incrementAndGet());
            }
            // Within the producer's own limit, so only the broker refuses it, after send() returned.
            producer.send(new ProducerRecord<>(strict, new byte[8 * 1024]), (metadata, error) -> {
                refusal.set(error);
                called.incrementAndGet();
            });
            producer.flush();
            // The broker's refusal itself, the class Kafka Streams tells a send error by.
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(RecordTooLargeException.class);
            assertThat(called).as("every record's callback ran before the commit failed").hasValue(11);
            assertThat(refusal.get()).isInstanceOf(RecordTooLargeException.class);
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(record(accepted, "after"));
            producer.commitTransaction();
        }
        assertThat(readCommitted(accepted, 1)).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .containsExactly("after");
    }

    @Test
    void withoutATransactionFlushWaitsForEveryRecord() {
        String topic = broker.uniqueName("flush-plain");
        broker.createTopics(3, topic);
        AtomicInteger acknowledged = new AtomicInteger();
        Map<String, Object> props = broker.producerProps();
        props.put(ProducerConfig.LINGER_MS_CONFIG, 50);
        try (Producer<byte[], byte[]> producer = clients.getProducer(props)) {
            assertThat(producer).isExactlyInstanceOf(KafkaProducer.class);
            for (int i = 0; i < 200; i++) {
                producer.send(record(topic, "r" + i), (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                    }
                });
            }
            producer.flush();
            assertThat(acknowledged).hasValue(200);
        }
    }

    private static Map<String, Object> transactional(String id) {
        Map<String, Object> props = broker.producerProps();
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, broker.uniqueName(id));
        // As the stream threads' producers: records wait to be batched, so a commit finds some unsent.
        props.put(ProducerConfig.LINGER_MS_CONFIG, 10);
        return props;
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
        return new ProducerRecord<>(topic, value.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }

    /** Reads the topic's committed records until {@code expected} arrived and one more poll brought nothing. */
    private static List<ConsumerRecord<byte[], byte[]>> readCommitted(String topic, int expected) {
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("g")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            boolean quiet = false;
            while (System.nanoTime() < deadline && !(read.size() >= expected && quiet)) {
                var records = consumer.poll(Duration.ofMillis(500));
                quiet = records.isEmpty();
                records.forEach(read::add);
            }
        }
        return read;
    }
}
