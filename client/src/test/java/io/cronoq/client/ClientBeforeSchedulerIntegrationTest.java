package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.TaskState;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A producer that starts before the scheduler: nothing is auto-created, and nothing is lost once it is up. */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClientBeforeSchedulerIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "reports";

    @Test
    void submitsFailClearlyUntilTheSchedulerCreatedItsTopicsAndAnEarlyOutcomeWaitsForTheJournal() throws Exception {
        String prefix = broker.uniqueName("early") + ".";
        try (CronoqClient client = CronoqClient.builder(broker.bootstrapServers()).topicPrefix(prefix).build()) {
            Task task = Task.of("quarterly").pool(POOL).build();

            assertThatThrownBy(() -> client.submit(task).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'" + prefix + "submissions' does not exist");
            CompletableFuture<TaskOutcome> outcome = client.outcome(task);
            assertThat(broker.adminClient().listTopics().names().get(30, TimeUnit.SECONDS))
                    .as("the broker did not auto-create the submissions topic with its default partition count")
                    .doesNotContain(prefix + "submissions");

            try (RunningScheduler scheduler = RunningScheduler.on(broker).prefix(prefix).neverEvict().start();
                 SimulatedWorker worker = new SimulatedWorker(scheduler, POOL, "w1")) {
                worker.register(Map.of(), 1);
                // Resending the same task until it lands is safe: one id, one task.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() ->
                        client.submit(task).handle((id, error) -> error == null).get(30, TimeUnit.SECONDS));
                worker.succeed(worker.awaitAssignment(task.id()), null);

                assertThat(outcome.get(60, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);
            }
        }
    }
}
