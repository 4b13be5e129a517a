package io.cronoq.ops.bench;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The one producer configuration of the load generators, for the scheduler's inputs and the baseline's alike. */
final class BenchProducers {

    private BenchProducers() {}

    /**
     * acks=all, idempotent, linger 5 ms, 64 KB batches (the settings under which a raw producer on
     * these machines writes 215k–252k records/s), and one request in flight: with more, a first batch that fails retriably on a
     * just-created topic while a later one succeeds leaves the producer retrying it forever with
     * OUT_OF_ORDER_SEQUENCE_NUMBER (KAFKA-14359; seen here on a bench's fresh topics).
     */
    static KafkaProducer<String, byte[]> create(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        props.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        return new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer());
    }
}
