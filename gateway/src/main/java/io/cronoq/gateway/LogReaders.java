package io.cronoq.gateway;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The consumer the gateway reads cronoq's own topics with (the journal, the dead letters): committed
 * records only, assigned partitions rather than a group, no offsets committed, values left as bytes
 * for the reader to decode.
 */
final class LogReaders {

    private LogReaders() {}

    /** A reader with the gateway's Kafka settings, named {@code clientId} unless the settings name one. */
    static KafkaConsumer<String, byte[]> create(Map<String, Object> kafkaConfig, String clientId) {
        Map<String, Object> config = new HashMap<>(kafkaConfig);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    }
}
