package io.cronoq.ops;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends what a scheduler's config file sets ({@link ConfigChanges}: sharing policy, limits) to its
 * submissions topic, keyed by pool like any admin change, once the scheduler has created its topics:
 * the scheduler then journals each change and decides under it, so what is in force is in the journal.
 */
final class ConfigPublisher {

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private ConfigPublisher() {}

    /**
     * Sends every change in order, durably (acks=all, idempotent), and returns once all are acknowledged.
     *
     * @throws IllegalStateException when Kafka does not acknowledge them in time
     */
    static void publish(SchedulerApp scheduler, ConfigChanges changes) {
        if (changes.isEmpty()) {
            return;
        }
        Topic<String, SubmissionEvent> submissions = scheduler.topics().submissions();
        try (KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(
                KafkaClients.durableProducer(scheduler.config().kafkaClientSettings(),
                        KafkaClients.uniqueId("cronoq-config-changes")),
                submissions.keySerde().serializer(), submissions.valueSerde().serializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (ConfigChanges.Change change : changes.changes()) {
                sent.add(producer.send(new ProducerRecord<>(submissions.name(), change.pool(), change.event())));
            }
            for (Future<RecordMetadata> ack : sent) {
                ack.get(SEND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not send the config file's " + changes.what() + " to "
                    + submissions.name() + ": " + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending the config file's " + changes.what(), e);
        }
    }
}
