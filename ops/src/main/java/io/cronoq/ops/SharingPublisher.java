package io.cronoq.ops;

import io.cronoq.events.SharingPolicySet;
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
 * Sends a scheduler's configured sharing policy ({@link SharingConfig}) to its submissions topic,
 * keyed by pool like any admin change, once the scheduler has created its topics: the scheduler
 * then journals each change and decides under it, so the policy in force is in the journal.
 */
final class SharingPublisher {

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private SharingPublisher() {}

    /**
     * Sends every change, durably (acks=all, idempotent), and returns once all are acknowledged.
     *
     * @throws IllegalStateException when Kafka does not acknowledge them in time
     */
    static void publish(SchedulerApp scheduler, List<SharingPolicySet> policies) {
        if (policies.isEmpty()) {
            return;
        }
        Topic<String, SubmissionEvent> submissions = scheduler.topics().submissions();
        try (KafkaProducer<String, SubmissionEvent> producer = new KafkaProducer<>(
                KafkaClients.durableProducer(scheduler.config().kafkaClientSettings(),
                        KafkaClients.uniqueId("cronoq-config-sharing")),
                submissions.keySerde().serializer(), submissions.valueSerde().serializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (SharingPolicySet policy : policies) {
                sent.add(producer.send(new ProducerRecord<>(submissions.name(), policy.getPool(),
                        new SubmissionEvent(policy))));
            }
            for (Future<RecordMetadata> ack : sent) {
                ack.get(SEND_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not send the config file's sharing policy to "
                    + submissions.name() + ": " + (e.getCause() != null ? e.getCause() : e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending the config file's sharing policy", e);
        }
    }

    /** {@code 2 tenant(s) and 1 pool(s)}: what the policy sets, for the start's progress line. */
    static String summary(List<SharingPolicySet> policies) {
        long tenants = policies.stream().filter(p -> p.getTenant() != null).count();
        return tenants + " tenant setting(s) and " + (policies.size() - tenants) + " pool setting(s)";
    }
}
