package io.cronoq.gateway;

import io.cronoq.schemas.KafkaClients;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The consumer the gateway reads cronoq's own topics with (the journal, the dead letters): a
 * {@linkplain KafkaClients#logReader log reader} (committed records only, assigned partitions
 * rather than a group, no offsets committed), values left as bytes for the reader to decode.
 */
final class LogReaders {

    private LogReaders() {}

    /** A reader with the gateway's Kafka settings, named {@code clientId} unless the settings name one. */
    static KafkaConsumer<String, byte[]> create(Map<String, Object> kafkaConfig, String clientId) {
        Object named = kafkaConfig.get(ConsumerConfig.CLIENT_ID_CONFIG);
        Map<String, Object> config = KafkaClients.logReader(kafkaConfig, named == null ? clientId : named.toString());
        return new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
    }
}
