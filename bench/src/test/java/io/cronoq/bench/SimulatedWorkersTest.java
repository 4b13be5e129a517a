package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The simulated workers answer an assignment as an agent does, on a real broker and without a
 * scheduler: the test writes the scheduler's side (the registration's answer, an assignment) and
 * reads the reports off the completions topic.
 */
@Tag("integration")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SimulatedWorkersTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "pool-a";
    private static final String WORKER = "worker-1";

    /** A report as read: the event and the moment its record was written. */
    private record Report(Object event, long writtenAtMillis) {
        String kind() {
            return event.getClass().getSimpleName();
        }
    }

    @Test
    void anInstantAttemptIsReportedByItsSuccessAlone() {
        List<Report> reports = answerOneAssignment(0, 20);

        assertThat(reports).extracting(Report::kind).containsExactly("AttemptSucceeded");
    }

    @Test
    void aLongerAttemptReportsItsRealStartAfterTheDelayThenItsSuccess() {
        List<Report> reports = answerOneAssignment(300, 20);

        assertThat(reports).extracting(Report::kind).containsExactly("AttemptStarted", "AttemptSucceeded");
        AttemptStarted started = (AttemptStarted) reports.get(0).event();
        AttemptSucceeded succeeded = (AttemptSucceeded) reports.get(1).event();
        assertThat(reports.get(0).writtenAtMillis() - started.getAt().toEpochMilli())
                .as("held back for the delay, stamped with the real start").isGreaterThanOrEqualTo(10);
        assertThat(Duration.between(started.getAt(), succeeded.getAt())).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    }

    @Test
    void withoutADelayTheStartIsReportedAtOnceAsBefore() {
        List<Report> reports = answerOneAssignment(0, 0);

        assertThat(reports).extracting(Report::kind).containsExactly("AttemptStarted", "AttemptSucceeded");
    }

    private static List<Report> answerOneAssignment(long runMs, long startReportDelayMs) {
        String bootstrap = broker.bootstrapServers();
        Topics topics = Topics.withPrefix(broker.uniqueName("simulated") + ".", new InMemorySchemaRegistry());
        broker.createTopics(1, topics.assignments().name(), topics.completions().name(), topics.workers().name());
        List<Report> reports = new CopyOnWriteArrayList<>();
        try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, runMs, startReportDelayMs);
             TopicTail completions = TopicTail.start(bootstrap, topics.completions().name(), (record, now) ->
                     reports.add(new Report(topics.completions().valueSerde().deserializer()
                             .deserialize(record.topic(), record.value()).getEvent(), record.timestamp())));
             KafkaProducer<String, byte[]> scheduler = new KafkaProducer<>(broker.producerProps(),
                     new StringSerializer(), new ByteArraySerializer())) {
            workers.register(List.of(WorkerRegistered.newBuilder().setWorkerId(WORKER).setPool(POOL).setSlots(1)
                    .setLabels(Map.of()).setRegisteredAt(Instant.now()).build()));
            answer(scheduler, topics, RegistrationAccepted.newBuilder().setWorkerId(WORKER).setPool(POOL)
                    .setGeneration(1).setGroup(Map.of()).setSlots(1).setAt(Instant.now()).build());
            await().atMost(Duration.ofSeconds(30)).until(() -> workers.accepted(List.of(WORKER)));
            answer(scheduler, topics, AttemptAssigned.newBuilder().setTaskId("task-1").setPool(POOL).setAttempt(1)
                    .setWorkerId(WORKER).setGeneration(1).setGroup(Map.of())
                    .setPayload(Workload.stamp(System.nanoTime())).setAssignedAt(Instant.now()).build());
            // One producer, one partition: a start report would be read before the success.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> reports.stream().anyMatch(r -> r.event() instanceof AttemptSucceeded));
            assertThat(workers.placements().count()).isEqualTo(1);
        }
        return reports;
    }

    private static void answer(KafkaProducer<String, byte[]> producer, Topics topics, Object event) {
        String topic = topics.assignments().name();
        byte[] value = topics.assignments().valueSerde().serializer().serialize(topic, Assignments.of(event));
        producer.send(new ProducerRecord<>(topic, WORKER, value));
        producer.flush();
    }
}
