package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.testing.JournalTail;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A producer that gives up waiting and sends the same task again creates one task, not two. */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ResendIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "batch";

    private RunningScheduler scheduler;

    @BeforeEach
    void start() {
        scheduler = RunningScheduler.on(broker).name("client").neverEvict().start();
    }

    @AfterEach
    void stop() {
        scheduler.close();
    }

    @Test
    void resendingTheSameTaskAfterATimeoutYieldsOneTask() throws Exception {
        try (CronoqClient client = CronoqClient.builder(scheduler.bootstrap()).topicPrefix(scheduler.prefix()).build();
             SimulatedWorker worker = new SimulatedWorker(scheduler, POOL, "w1");
             JournalTail journal = scheduler.journal()) {
            worker.register(Map.of(), 4);
            Task task = Task.of("charge order 17").pool(POOL).build();

            // Given a send whose future the caller abandoned (it looked timed out to them)...
            CompletableFuture<String> abandoned = client.submit(task);
            // ...when the caller sends the same task again, from another client as after a restart,
            try (CronoqClient restarted = CronoqClient.builder(scheduler.bootstrap()).topicPrefix(scheduler.prefix()).build()) {
                assertThat(restarted.submit(task).get(30, TimeUnit.SECONDS)).isEqualTo(task.id());
            }
            assertThat(abandoned.get(30, TimeUnit.SECONDS)).as("the first send landed too").isEqualTo(task.id());

            // then the scheduler journals one task and ignores the second submission,
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(journal.typesOf(task.id()))
                    .contains("TaskSubmitted", "DuplicateSubmission", "AttemptAssigned"));
            AttemptAssigned attempt = worker.awaitAssignment(task.id());
            worker.succeed(attempt, null);
            assertThat(client.outcome(task).get(60, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);

            assertThat(journal.typesOf(task.id()))
                    .filteredOn("TaskSubmitted"::equals).as("one task").hasSize(1);
            assertThat(journal.typesOf(task.id()))
                    .filteredOn("DuplicateSubmission"::equals).as("the resend, recognized").hasSize(1);
            assertThat(journal.typesOf(task.id()))
                    .filteredOn("AttemptAssigned"::equals).as("one assignment").hasSize(1);
            assertThat(worker.received()).filteredOn(a -> a.getTaskId().equals(task.id())).hasSize(1);
        }
    }
}
