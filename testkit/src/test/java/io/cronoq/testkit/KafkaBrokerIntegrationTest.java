package io.cronoq.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("integration")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KafkaBrokerIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @Test
    void producedRecordIsConsumedByAGroup() throws Exception {
        String topic = broker.uniqueName("plain");
        broker.createTopics(3, topic);

        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>(topic, "pool-a", "hello")).get();
        }

        List<ConsumerRecord<String, String>> records = consumeAtLeast(topic, 1);
        assertThat(records).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("pool-a");
            assertThat(r.value()).isEqualTo("hello");
        });
    }

    @Test
    void readCommittedConsumerSeesCommittedTransactionsOnlyOnASingleNode() throws Exception {
        String topic = broker.uniqueName("txn");
        broker.createTopics(1, topic);

        try (KafkaProducer<String, String> producer =
                     producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, broker.uniqueName("tx")))) {
            producer.initTransactions();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted"));
            producer.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed-1"));
            producer.send(new ProducerRecord<>(topic, "k", "committed-2"));
            producer.commitTransaction();
        }

        List<ConsumerRecord<String, String>> records = consumeAtLeast(topic, 2);
        assertThat(records).extracting(ConsumerRecord::value).containsExactly("committed-1", "committed-2");
    }

    @Test
    void createTopicAppliesPartitionsAndConfigs() throws Exception {
        String topic = broker.uniqueName("compacted");

        broker.createTopic(topic, 2, Map.of("cleanup.policy", "compact"));

        TopicDescription description =
                broker.adminClient().describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        assertThat(description.partitions()).hasSize(2);
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        String policy = broker.adminClient().describeConfigs(List.of(resource)).all().get()
                .get(resource).get("cleanup.policy").value();
        assertThat(policy).isEqualTo("compact");
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> props = broker.producerProps();
        props.putAll(extra);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** Polls until at least {@code count} records arrived, then drains briefly to catch any unexpected extra. */
    private static List<ConsumerRecord<String, String>> consumeAtLeast(String topic, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                broker.consumerProps(broker.uniqueName("group")), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }
}
