package io.cronoq.bench;

import io.cronoq.schemas.KafkaClients;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka clients of the bench's own load generators and probes, on {@link KafkaClients}' settings
 * over nothing but the bootstrap servers: one producer configuration for the scheduler's inputs and
 * the baseline's alike, and an admin client.
 */
final class BenchClients {

    private BenchClients() {}

    /**
     * A load generator's producer: {@link KafkaClients#durableProducer} (acks=all, idempotent, linger
     * 5 ms, 64 KB batches: the settings under which a raw producer on these machines writes 215k–252k
     * records/s) with a large buffer and {@link #oneInFlight one request in flight}.
     */
    static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Map<String, Object> config = KafkaClients.durableProducer(KafkaClients.bootstrap(bootstrap),
                KafkaClients.uniqueId("cronoq-bench-load"));
        // Room for a whole drain's pre-submitted tasks while the first batches are still in flight.
        config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 128L * 1024 * 1024);
        oneInFlight(config);
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * One request in flight: with more, a first batch that fails retriably on a just-created topic while
     * a later one succeeds leaves an idempotent producer retrying it forever with
     * OUT_OF_ORDER_SEQUENCE_NUMBER (a known Kafka client bug, seen here on a bench's fresh topics).
     */
    static void oneInFlight(Map<String, Object> producerConfig) {
        producerConfig.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    }

    /** An admin client of the cluster at {@code bootstrap}. */
    static Admin admin(String bootstrap) {
        return Admin.create(KafkaClients.admin(KafkaClients.bootstrap(bootstrap),
                KafkaClients.uniqueId("cronoq-bench-admin")));
    }
}
