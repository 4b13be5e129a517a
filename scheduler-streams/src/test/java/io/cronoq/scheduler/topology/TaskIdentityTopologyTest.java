package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.query.ReadOnlyStores;
import io.cronoq.scheduler.query.SchedulerQueries;
import io.cronoq.scheduler.replay.JournalFold;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task is its pool and its id. Two pools (here on one partition, as pools often share one) may
 * each submit a task {@code x}: both are accepted, scheduled and answered, and neither pool's journal
 * mentions the other's. Only a second {@code x} in the same pool is a duplicate.
 */
class TaskIdentityTopologyTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    private static TaskSubmitted task(String pool, String id, String payload) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(pool).setLabels(Map.of())
                .setPayload(ByteBuffer.wrap(payload.getBytes())).setSubmittedAt(T0).build();
    }

    private static WorkerRegistered worker(String pool, String id) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(pool).setLabels(Map.of()).setSlots(1)
                .setRegisteredAt(T0).build();
    }

    private static List<Object> eventsOf(List<JournalEntry> journal, String pool) {
        return journal.stream().filter(e -> e.getPool().equals(pool)).map(e -> (Object) e.getEvent()).toList();
    }

    @Test
    void theSameIdInTwoPoolsIsTwoTasks() {
        scheduler.send(task("inference", "x", "infer"));
        scheduler.send(task("training", "x", "train"));
        List<JournalEntry> journal = scheduler.journal();

        assertThat(eventsOf(journal, "training")).noneMatch(e -> e instanceof DuplicateSubmission);
        assertThat(eventsOf(journal, "inference")).noneMatch(e -> e instanceof DuplicateSubmission);
        TaskRecord inference = scheduler.task("inference", "x");
        TaskRecord training = scheduler.task("training", "x");
        assertThat(inference.getTask().getPayload()).isEqualTo(ByteBuffer.wrap("infer".getBytes()));
        assertThat(training.getTask().getPayload()).isEqualTo(ByteBuffer.wrap("train".getBytes()));
        assertThat(training.getState()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void eachPoolsTaskRunsAndFinishesOnItsOwn() {
        scheduler.send(task("inference", "x", "infer"));
        scheduler.send(task("training", "x", "train"));
        scheduler.send(worker("training", "t-w"));
        List<JournalEntry> journal = scheduler.journal();
        AttemptAssigned assigned = eventsOf(journal, "training").stream()
                .filter(e -> e instanceof AttemptAssigned).map(e -> (AttemptAssigned) e).findFirst().orElseThrow();

        scheduler.send(AttemptSucceeded.newBuilder().setTaskId("x").setPool("training").setAttempt(assigned.getAttempt())
                .setWorkerId("t-w").setGeneration(assigned.getGeneration()).setAt(T0.plusSeconds(1)).build());

        assertThat(scheduler.task("training", "x").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.task("inference", "x").getState()).isEqualTo(TaskState.WAITING);
        JournalFold fold = new JournalFold();
        fold.applyAll(journal);
        fold.applyAll(scheduler.journal());
        assertThat(fold.task("training", "x").state()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(fold.task("inference", "x").state()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void aSecondXInTheSamePoolIsStillADuplicate() {
        scheduler.send(task("inference", "x", "first"));
        scheduler.send(task("inference", "x", "second"));

        assertThat(eventsOf(scheduler.journal(), "inference")).anyMatch(e -> e instanceof DuplicateSubmission);
        assertThat(scheduler.task("inference", "x").getTask().getPayload())
                .isEqualTo(ByteBuffer.wrap("first".getBytes()));
    }

    @Test
    void theReadSideFindsEachPoolsTaskAndEveryPoolThatUsesAnId() {
        scheduler.send(task("inference", "x", "infer"));
        scheduler.send(task("training", "x", "train"));
        SchedulerQueries queries = new SchedulerQueries(ReadOnlyStores.of(scheduler.driver::getKeyValueStore));

        assertThat(queries.task("training", "x").orElseThrow().getTask().getPool()).isEqualTo("training");
        assertThat(queries.tasksWithId("x")).extracting(t -> t.getTask().getPool())
                .containsExactly("inference", "training");
    }

    @Test
    void aTaskStoredUnderTheBareIdOfAnEarlierReleaseIsStillFoundAndMovedToItsPoolsKey() {
        scheduler.send(task("inference", "x", "infer"));
        var store = scheduler.driver.<String, TaskRecord>getKeyValueStore(StoreNames.TASKS);
        // As an earlier release wrote it: under the bare id.
        TaskRecord record = store.get(StoreNames.taskKey("inference", "x"));
        store.delete(StoreNames.taskKey("inference", "x"));
        store.put("x", record);
        // A restarted scheduler has decoded nothing yet: push x out of the decoded-task cache.
        for (int i = 0; i < StorePoolStore.DecodedTasks.CAPACITY; i++) {
            scheduler.send(task("other", "o" + i, "o"));
        }
        scheduler.journal();
        scheduler.send(worker("inference", "w"));
        List<JournalEntry> journal = scheduler.journal();

        assertThat(eventsOf(journal, "inference")).anyMatch(e -> e instanceof AttemptAssigned a
                && a.getTaskId().equals("x"));
        assertThat(store.get("x")).as("the bare-id record is moved").isNull();
        assertThat(store.get(StoreNames.taskKey("inference", "x")).getState()).isEqualTo(TaskState.ASSIGNED);
    }
}
