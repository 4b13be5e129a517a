package io.cronoq.bench.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads everything committed to a topic, partition by partition in offset order, as a reader of the log would. */
final class TopicDump {

    private TopicDump() {}

    /** Every committed record of {@code topic}, in offset order within each partition. */
    static <V> List<ConsumerRecord<String, V>> readAll(String bootstrap, String topic, Deserializer<V> values) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
        List<ConsumerRecord<String, V>> all = new ArrayList<>();
        try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(props, new StringDeserializer(), values)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end in 120 s");
                }
                consumer.poll(Duration.ofMillis(200)).forEach(all::add);
            }
        }
        all.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                : Long.compare(a.offset(), b.offset()));
        return all;
    }
}
