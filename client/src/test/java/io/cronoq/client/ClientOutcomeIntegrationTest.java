package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.testing.JournalTail;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Tasks submitted with the client run on a real scheduler, and their outcomes are awaited from the journal. */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientOutcomeIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "inference";

    private RunningScheduler scheduler;
    private CronoqClient client;
    private SimulatedWorker worker;

    @BeforeEach
    void start() {
        scheduler = RunningScheduler.on(broker).name("client").neverEvict().start();
        client = CronoqClient.builder(scheduler.bootstrap()).topicPrefix(scheduler.prefix()).build();
        worker = new SimulatedWorker(scheduler, POOL, "gpu-1");
    }

    @AfterEach
    void stop() {
        worker.close();
        client.close();
        scheduler.close();
    }

    @Test
    void aSubmittedTaskRunsOnAMatchingWorkerAndItsOutcomeCarriesTheResult() throws Exception {
        worker.register(Map.of("gpu", "a100"), 2);
        Task task = Task.of("resize cat.png").pool(POOL).label("gpu", "a100").build();

        assertThat(client.submit(task).get(30, TimeUnit.SECONDS)).isEqualTo(task.id());
        CompletableFuture<TaskOutcome> outcome = client.outcome(task);
        AttemptAssigned attempt = worker.awaitAssignment(task.id());
        assertThat(attempt.getGroup()).isEqualTo(Map.of("gpu", "a100"));
        assertThat(StandardCharsets.UTF_8.decode(attempt.getPayload()).toString()).isEqualTo("resize cat.png");
        worker.succeed(attempt, "cat-small.png".getBytes(StandardCharsets.UTF_8));

        TaskOutcome done = outcome.get(60, TimeUnit.SECONDS);
        assertThat(done.state()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(done.taskId()).isEqualTo(task.id());
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.workerId()).contains("gpu-1");
        assertThat(done.result()).hasValueSatisfying(r ->
                assertThat(new String(r, StandardCharsets.UTF_8)).isEqualTo("cat-small.png"));
    }

    @Test
    void aRetriedFailureIsNotAnOutcomeTheFinalFailureIs() throws Exception {
        worker.register(Map.of(), 1);
        Task task = Task.of("flaky").pool(POOL).retry(Retry.attempts(2)).build();
        client.submit(task).get(30, TimeUnit.SECONDS);
        CompletableFuture<TaskOutcome> outcome = client.outcome(task.id(), POOL);

        worker.fail(worker.awaitAssignment(task.id(), 1), "out of memory", true);
        AttemptAssigned second = worker.awaitAssignment(task.id(), 2);
        assertThat(outcome).as("a failure with attempts left is retried, not an outcome").isNotDone();
        worker.fail(second, "out of memory again", true);

        TaskOutcome done = outcome.get(60, TimeUnit.SECONDS);
        assertThat(done.state()).isEqualTo(TaskState.FAILED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.message()).contains("out of memory again");
    }

    @Test
    void aCancelledTaskEndsCancelledWithTheReason() throws Exception {
        Task task = Task.of("never runs").pool(POOL).label("gpu", "h100").build();
        client.submit(task).get(30, TimeUnit.SECONDS);
        CompletableFuture<TaskOutcome> outcome = client.outcome(task);

        client.cancel(task.id(), POOL, "changed my mind").get(30, TimeUnit.SECONDS);

        TaskOutcome done = outcome.get(60, TimeUnit.SECONDS);
        assertThat(done.state()).isEqualTo(TaskState.CANCELLED);
        assertThat(done.message()).contains("changed my mind");
    }

    @Test
    void anOutcomeAskedForAfterTheTaskEndedIsAnsweredByThisAndByAnotherClient() throws Exception {
        worker.register(Map.of(), 4);
        Task first = Task.of("one").pool(POOL).build();
        Task second = Task.of("two").pool(POOL).build();
        client.submit(first).get(30, TimeUnit.SECONDS);
        CompletableFuture<TaskOutcome> following = client.outcome(first);
        worker.succeed(worker.awaitAssignment(first.id()), null);
        following.get(60, TimeUnit.SECONDS);

        client.submit(second).get(30, TimeUnit.SECONDS);
        worker.succeed(worker.awaitAssignment(second.id()), null);
        // The second task ended while this client's reader followed the partition: remembered, not reread.
        CompletableFuture<TaskOutcome> late = awaitEnded(client, second);
        assertThat(late.get(60, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);

        try (CronoqClient other = CronoqClient.builder(scheduler.bootstrap()).topicPrefix(scheduler.prefix()).build()) {
            assertThat(other.outcome(first.id(), POOL).get(60, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(other.outcome(second.id(), POOL, Instant.now().minus(Duration.ofMinutes(5)))
                    .get(60, TimeUnit.SECONDS).workerId()).contains("gpu-1");
        }
    }

    @Test
    void anOutcomeOfATaskNeverSubmittedDoesNotCompleteAndCanBeBounded() {
        CompletableFuture<TaskOutcome> outcome = client.outcome("no-such-task", POOL).orTimeout(2, TimeUnit.SECONDS);
        assertThatThrownBy(() -> outcome.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
    }

    /** Asks for the outcome once the journal holds it, so the answer comes from what the reader remembered. */
    private CompletableFuture<TaskOutcome> awaitEnded(CronoqClient c, Task task) {
        try (JournalTail journal = scheduler.journal()) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                    .until(() -> journal.typesOf(task.id()).contains("TaskFinished"));
        }
        return c.outcome(task);
    }
}
