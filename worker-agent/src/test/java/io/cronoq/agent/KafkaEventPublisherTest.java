package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A send that fails while the broker is away is retried until it is written; only a hopeless one is dropped. */
@Timeout(30)
class KafkaEventPublisherTest {

    private final MockProducer<String, byte[]> producer = new MockProducer<>(false, null, new StringSerializer(),
            new ByteArraySerializer());
    private final Topics topics = Topics.withPrefix("t.", new InMemorySchemaRegistry());
    private final KafkaEventPublisher publisher = new KafkaEventPublisher(producer, topics, "w-1");

    @AfterEach
    void close() {
        publisher.close(Duration.ofMillis(100));
    }

    @Test
    void aSendFailingWithARetriableErrorIsRetriedUntilWritten() {
        CompletableFuture<Void> done = publisher.publish(new AttemptSucceeded("t1", "inference", 1, "w-1", 1L,
                Instant.EPOCH, null));
        await().until(() -> producer.history().size() == 1);

        producer.errorNext(new NetworkException("broker away"));
        assertThat(done).isNotDone();
        await().until(() -> producer.history().size() == 2);
        producer.errorNext(new NetworkException("broker still away"));
        await().until(() -> producer.history().size() == 3);
        producer.completeNext();

        done.join();
        List<ProducerRecord<String, byte[]>> sent = producer.history();
        assertThat(sent).extracting(ProducerRecord::topic).containsOnly("t.completions");
        assertThat(sent).extracting(ProducerRecord::key).containsOnly("inference");
        CompletionEvent event = topics.completions().valueSerde().deserializer().deserialize("t.completions",
                sent.get(2).value());
        assertThat(event.getEvent()).isInstanceOf(AttemptSucceeded.class);
    }

    @Test
    void workerEventsGoToTheWorkersTopicKeyedByPool() {
        CompletableFuture<Void> done = publisher.publish(new WorkerHeartbeat("w-1", "inference", 2L, List.of(),
                Instant.EPOCH));
        await().until(() -> producer.history().size() == 1);
        producer.completeNext();
        done.join();
        ProducerRecord<String, byte[]> record = producer.history().get(0);
        assertThat(record.topic()).isEqualTo("t.workers");
        assertThat(record.key()).isEqualTo("inference");
        WorkerEvent event = topics.workers().valueSerde().deserializer().deserialize("t.workers", record.value());
        assertThat(event.getEvent()).isInstanceOf(WorkerHeartbeat.class);
    }

    @Test
    void aSendTheBrokerRefusesForGoodFailsItsFutureAndIsNotRetried() {
        CompletableFuture<Void> done = publisher.publish(new WorkerHeartbeat("w-1", "inference", 2L, List.of(),
                Instant.EPOCH));
        await().until(() -> producer.history().size() == 1);
        producer.errorNext(new RecordTooLargeException("too large"));

        assertThat(done).failsWithin(Duration.ofSeconds(5));
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void backoffGrowsToItsCeiling() {
        assertThat(KafkaEventPublisher.backoff(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(KafkaEventPublisher.backoff(2)).isEqualTo(Duration.ofMillis(400));
        assertThat(KafkaEventPublisher.backoff(30)).isEqualTo(Duration.ofSeconds(5));
    }
}
