package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.cancel;
import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.started;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static io.cronoq.scheduler.fixtures.Events.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each placement rule, through the whole topology under TopologyTestDriver. */
class PlacementRulesTopologyTest {

    private static final String POOL = "inference";
    private static final Map<String, String> A100 = Map.of("gpu", "a100");

    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void registrationIsAcknowledgedWithGenerationAndGroup() {
        scheduler.send(register("gpu-1", POOL, A100, 4));

        List<KeyValue<String, SpecificRecord>> out = scheduler.assignments();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key).isEqualTo("gpu-1");
        RegistrationAccepted accepted = (RegistrationAccepted) out.get(0).value;
        assertThat(accepted.getGeneration()).isEqualTo(1L);
        assertThat(accepted.getGroup()).isEqualTo(A100);
        assertThat(accepted.getSlots()).isEqualTo(4);
    }

    @Test
    void groupCapacityIsTheSumOfItsWorkersSlots() {
        scheduler.send(register("cpu-1", POOL, Map.of(), 2)).send(register("cpu-2", POOL, Map.of(), 3));
        scheduler.assignments();

        for (int i = 1; i <= 6; i++) {
            scheduler.send(submit("t" + i, POOL));
        }

        assertThat(assigned()).hasSize(5);
        assertThat(scheduler.task("t6").getState()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void unlabeledTaskPrefersLeastSpecializedGroup() {
        scheduler.send(register("gpu-1", POOL, Map.of("gpu", "a100", "zone", "eu"), 8))
                .send(register("gpu-2", POOL, A100, 8))
                .send(register("cpu-1", POOL, Map.of(), 1));
        scheduler.assignments();

        scheduler.send(submit("t1", POOL)).send(submit("t2", POOL)).send(submit("t3", POOL));

        assertThat(assigned()).extracting(AttemptAssigned::getWorkerId).containsExactly("cpu-1", "gpu-2", "gpu-2");
    }

    @Test
    void unlabeledTaskBreaksTiesOnFewestLabelsByMostFreeSlots() {
        scheduler.send(register("eu-1", POOL, Map.of("zone", "eu"), 2))
                .send(register("us-1", POOL, Map.of("zone", "us"), 5));
        scheduler.assignments();

        scheduler.send(submit("t1", POOL));

        assertThat(assigned()).extracting(AttemptAssigned::getWorkerId).containsExactly("us-1");
    }

    @Test
    void labeledTaskRunsOnlyInGroupCarryingEveryRequiredLabel() {
        scheduler.send(register("cpu-1", POOL, Map.of(), 8))
                .send(register("h100-1", POOL, Map.of("gpu", "h100"), 8))
                .send(register("a100-eu", POOL, Map.of("gpu", "a100", "zone", "eu"), 8));
        scheduler.assignments();

        scheduler.send(submit("t1", POOL, A100));

        List<AttemptAssigned> out = assigned();
        assertThat(out).extracting(AttemptAssigned::getWorkerId).containsExactly("a100-eu");
        assertThat(out.get(0).getGroup()).as("a group may carry more labels than required")
                .isEqualTo(Map.of("gpu", "a100", "zone", "eu"));
    }

    @Test
    void attemptGoesToLeastLoadedWorkerAndTiesRotate() {
        scheduler.send(register("w1", POOL, Map.of(), 4))
                .send(register("w2", POOL, Map.of(), 4))
                .send(register("w3", POOL, Map.of(), 4));
        scheduler.assignments();

        for (int i = 1; i <= 6; i++) {
            scheduler.send(submit("t" + i, POOL));
        }

        assertThat(assigned()).extracting(AttemptAssigned::getWorkerId)
                .containsExactly("w1", "w2", "w3", "w1", "w2", "w3");
    }

    @Test
    void waitingLabeledTaskDoesNotBlockThePool() {
        scheduler.send(register("cpu-1", POOL, Map.of(), 2));
        scheduler.assignments();

        scheduler.send(submit("needs-gpu", POOL, A100)).send(submit("plain-1", POOL)).send(submit("plain-2", POOL));

        assertThat(assigned()).extracting(AttemptAssigned::getTaskId).containsExactly("plain-1", "plain-2");
        assertThat(scheduler.task("needs-gpu").getState()).isEqualTo(TaskState.WAITING);
        assertThat(journalOf(TaskWaiting.class)).extracting(TaskWaiting::getTaskId).contains("needs-gpu");
    }

    @Test
    void unknownLabelsWaitUntilMatchingWorkerRegisters() {
        scheduler.send(submit("t1", POOL, Map.of("license", "matlab")));
        assertThat(assigned()).isEmpty();
        assertThat(scheduler.task("t1").getWaitingReason()).contains("license=matlab");

        scheduler.send(register("matlab-1", POOL, Map.of("license", "matlab"), 1));

        List<AttemptAssigned> out = assigned();
        assertThat(out).extracting(AttemptAssigned::getTaskId).containsExactly("t1");
        assertThat(out.get(0).getWorkerId()).isEqualTo("matlab-1");
    }

    @Test
    void freedSlotGoesToWaitingTasksInSubmissionOrder() {
        scheduler.send(register("gpu-1", POOL, A100, 1));
        scheduler.assignments();
        scheduler.send(submit("t1", POOL, A100)).send(submit("t2", POOL, A100)).send(submit("t3", POOL, A100));
        AttemptAssigned first = assigned().get(0);
        assertThat(first.getTaskId()).isEqualTo("t1");

        scheduler.send(started("t1", POOL, 1, "gpu-1", first.getGeneration()))
                .send(succeeded("t1", POOL, 1, "gpu-1", first.getGeneration()));

        assertThat(assigned()).extracting(AttemptAssigned::getTaskId).containsExactly("t2");
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.task("t3").getState()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void assignmentCarriesTaskPayloadAndGoesToTheWorkersKey() {
        scheduler.send(register("gpu-1", POOL, A100, 1));
        scheduler.assignments();

        scheduler.send(submit("t1", POOL, A100));

        List<KeyValue<String, SpecificRecord>> out = scheduler.assignments();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key).isEqualTo("gpu-1");
        AttemptAssigned a = (AttemptAssigned) out.get(0).value;
        assertThat(a.getAttempt()).isEqualTo(1);
        assertThat(a.getGeneration()).isEqualTo(1L);
        assertThat(new String(a.getPayload().array(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo("payload of t1");
    }

    @Test
    void cancellingWaitingTaskRemovesItFromTheQueue() {
        scheduler.send(register("gpu-1", POOL, A100, 1));
        scheduler.send(submit("t1", POOL, A100)).send(submit("t2", POOL, A100)).send(submit("t3", POOL, A100));
        AttemptAssigned first = assigned().get(0);

        scheduler.send(cancel("t2", POOL));
        scheduler.send(succeeded("t1", POOL, 1, "gpu-1", first.getGeneration()));

        assertThat(scheduler.task("t2").getState()).isEqualTo(TaskState.CANCELLED);
        assertThat(assigned()).extracting(AttemptAssigned::getTaskId).containsExactly("t3");
        assertThat(journalOf(TaskCancelled.class)).extracting(TaskCancelled::getPreviousState)
                .containsExactly(TaskState.WAITING);
    }

    @Test
    void cancellingRunningTaskRevokesItsAttemptAndFreesTheSlot() {
        scheduler.send(register("gpu-1", POOL, A100, 1));
        scheduler.send(submit("t1", POOL, A100)).send(submit("t2", POOL, A100));
        AttemptAssigned first = assigned().get(0);
        scheduler.send(started("t1", POOL, 1, "gpu-1", first.getGeneration()));
        scheduler.assignments();

        scheduler.send(cancel("t1", POOL));

        List<KeyValue<String, SpecificRecord>> out = scheduler.assignments();
        assertThat(out).extracting(kv -> kv.key).containsOnly("gpu-1");
        assertThat(out).extracting(kv -> (Object) kv.value.getClass()).containsExactly(AttemptRevoked.class, AttemptAssigned.class);
        assertThat(((AttemptRevoked) out.get(0).value).getTaskId()).isEqualTo("t1");
        assertThat(((AttemptAssigned) out.get(1).value).getTaskId()).isEqualTo("t2");
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.CANCELLED);
    }

    @Test
    void submittingTheSameIdTwiceCreatesOneTask() {
        scheduler.send(register("cpu-1", POOL, Map.of(), 4));
        scheduler.assignments();

        scheduler.send(submit("t1", POOL)).send(submit("t1", POOL));

        assertThat(assigned()).hasSize(1);
        assertThat(journalOf(DuplicateSubmission.class)).extracting(DuplicateSubmission::getTaskId)
                .containsExactly("t1");
    }

    @Test
    void recordKeyedOtherwiseIsRekeyedByItsPool() {
        scheduler.send(register("cpu-1", POOL, Map.of(), 4));
        scheduler.assignments();

        scheduler.sendKeyed("not-the-pool", submit("t1", POOL));

        assertThat(assigned()).extracting(AttemptAssigned::getTaskId).containsExactly("t1");
        assertThat(scheduler.deadLetters()).isEmpty();
    }

    private List<AttemptAssigned> assigned() {
        return scheduler.assignments().stream()
                .filter(kv -> kv.value instanceof AttemptAssigned)
                .map(kv -> (AttemptAssigned) kv.value)
                .toList();
    }

    private <T> List<T> journalOf(Class<T> type) {
        return scheduler.journal().stream()
                .map(JournalEntry::getEvent)
                .filter(type::isInstance)
                .map(type::cast)
                .toList();
    }
}
