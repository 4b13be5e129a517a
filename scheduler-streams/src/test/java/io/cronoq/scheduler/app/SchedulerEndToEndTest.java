package io.cronoq.scheduler.app;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.started;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static io.cronoq.scheduler.fixtures.Events.succeeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The scheduler on a real broker, exactly-once: workers register, tasks flow, completions free
 * slots, and every assignment arrives on its worker's key exactly once.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SchedulerEndToEndTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "inference";

    private RunningScheduler scheduler;
    private Topics topics;
    private Inputs inputs;
    private KafkaConsumer<String, AssignmentEvent> assignments;
    private KafkaConsumer<String, JournalEntry> journal;
    private final List<ConsumerRecord<String, AssignmentEvent>> received = new ArrayList<>();
    private final List<JournalEntry> journaled = new ArrayList<>();

    @BeforeEach
    void start() {
        scheduler = RunningScheduler.on(broker).name("e2e").neverEvict().start();
        topics = scheduler.topics();
        inputs = scheduler.inputs();
        assignments = consumer(topics.assignments());
        journal = consumer(topics.journal());
    }

    private <V> KafkaConsumer<String, V> consumer(Topic<String, V> topic) {
        var consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("reader")),
                topic.keySerde().deserializer(), topic.valueSerde().deserializer());
        consumer.subscribe(List.of(topic.name()));
        return consumer;
    }

    @AfterEach
    void stop() {
        inputs.close();
        assignments.close();
        journal.close();
        scheduler.close();
    }

    @Test
    void tasksFlowToMatchingWorkersAndCompletionsFreeSlotsExactlyOnce() {
        send(register("cpu-1", POOL, Map.of(), 2));
        send(register("gpu-1", POOL, Map.of("gpu", "a100"), 1));
        send(submit("g1", POOL, Map.of("gpu", "a100")));
        send(submit("t1", POOL));
        send(submit("t2", POOL));
        send(submit("t3", POOL));
        send(submit("g2", POOL, Map.of("gpu", "a100")));

        AttemptAssigned g1 = awaitAssigned("g1");
        AttemptAssigned t1 = awaitAssigned("t1");
        awaitAssigned("t2");
        assertThat(g1.getWorkerId()).isEqualTo("gpu-1");
        assertThat(g1.getGroup()).isEqualTo(Map.of("gpu", "a100"));
        assertThat(t1.getWorkerId()).isEqualTo("cpu-1");

        complete(t1);
        AttemptAssigned t3 = awaitAssigned("t3");
        assertThat(t3.getWorkerId()).as("the freed CPU slot serves the oldest task it can run").isEqualTo("cpu-1");
        complete(g1);
        AttemptAssigned g2 = awaitAssigned("g2");
        assertThat(g2.getWorkerId()).isEqualTo("gpu-1");
        for (String id : List.of("t2", "t3", "g2")) {
            complete(assigned(id));
        }

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            pollJournal();
            assertThat(journaled.stream().map(JournalEntry::getEvent).filter(TaskFinished.class::isInstance)
                    .map(e -> ((TaskFinished) e)).filter(f -> f.getState() == TaskState.SUCCEEDED)
                    .map(TaskFinished::getTaskId)).containsExactlyInAnyOrder("g1", "t1", "t2", "t3", "g2");
        });
        pollAssignments();
        List<String> attempts = received.stream().filter(r -> r.value().getEvent() instanceof AttemptAssigned)
                .map(r -> {
                    AttemptAssigned a = (AttemptAssigned) r.value().getEvent();
                    assertThat(r.key()).as("an assignment travels on its worker's key").isEqualTo(a.getWorkerId());
                    return a.getTaskId() + "#" + a.getAttempt();
                }).toList();
        assertThat(attempts).as("each attempt assigned exactly once").doesNotHaveDuplicates().hasSize(5);
    }

    private void complete(AttemptAssigned a) {
        send(started(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration()));
        send(succeeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration()));
    }

    private AttemptAssigned awaitAssigned(String taskId) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            pollAssignments();
            return find(taskId) != null;
        });
        return find(taskId);
    }

    private AttemptAssigned assigned(String taskId) {
        AttemptAssigned a = find(taskId);
        assertThat(a).as("assignment of " + taskId).isNotNull();
        return a;
    }

    private AttemptAssigned find(String taskId) {
        return received.stream().map(r -> r.value().getEvent())
                .filter(e -> e instanceof AttemptAssigned a && a.getTaskId().equals(taskId))
                .map(AttemptAssigned.class::cast).findFirst().orElse(null);
    }

    private void pollAssignments() {
        // one element per event, under its record's key
        assignments.poll(Duration.ofMillis(200)).forEach(r -> Assignments.events(r.value()).forEach(event ->
                received.add(new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(), Assignments.of(event)))));
    }

    private void pollJournal() {
        journal.poll(Duration.ofMillis(200)).forEach(r -> journaled.addAll(Journal.entries(r.value())));
    }

    private void send(SpecificRecord event) {
        inputs.send(POOL, event);
    }
}
