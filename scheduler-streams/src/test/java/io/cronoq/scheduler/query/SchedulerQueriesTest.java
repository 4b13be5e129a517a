package io.cronoq.scheduler.query;

import static io.cronoq.scheduler.fixtures.Events.drain;
import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.started;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static io.cronoq.scheduler.fixtures.Events.succeeded;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.ResourceRequest;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.fixtures.Events;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.query.PoolState.ClassState;
import io.cronoq.scheduler.query.PoolState.GroupState;
import io.cronoq.scheduler.topology.SchedulerTopology;
import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The read-side queries over the stores the real topology fills, under {@link TopologyTestDriver}. */
class SchedulerQueriesTest {

    private static final String POOL = "inference";

    private TopologyTestDriver driver;
    private TestInputTopic<String, SubmissionEvent> submissions;
    private TestInputTopic<String, WorkerEvent> workers;
    private TestInputTopic<String, CompletionEvent> completions;
    private SchedulerQueries queries;

    @BeforeEach
    void start() throws Exception {
        Topics topics = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry());
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), "dummy:9092",
                SchedulerConfig.STATE_DIR.name(), Files.createTempDirectory("cronoq-query").toString()));
        driver = new TopologyTestDriver(SchedulerTopology.build(topics), SchedulerApp.streamsProperties(config));
        submissions = driver.createInputTopic(topics.submissions().name(), topics.submissions().keySerde().serializer(),
                topics.submissions().valueSerde().serializer());
        workers = driver.createInputTopic(topics.workers().name(), topics.workers().keySerde().serializer(),
                topics.workers().valueSerde().serializer());
        completions = driver.createInputTopic(topics.completions().name(),
                topics.completions().keySerde().serializer(), topics.completions().valueSerde().serializer());
        queries = new SchedulerQueries(ReadOnlyStores.of(driver::getKeyValueStore));
    }

    @AfterEach
    void stop() {
        driver.close();
    }

    @Test
    void classNeedingResourcesNoWorkerPublishedIsUnservableThoughItsLabelsMatch() {
        send(register("cpu-1", POOL, Map.of(), 1));
        send(at(submit("t1", POOL), 10));
        TaskSubmitted big = at(submit("big", POOL), 20);
        big.setResources(ResourceRequest.newBuilder().setMemoryBytes(8L << 30).build());
        send(big);

        PoolState state = queries.pool(POOL).orElseThrow();

        assertThat(state.classes()).extracting(ClassState::key, ClassState::workers)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("|mem=8589934592", 0));
        assertThat(state.unservable()).isEqualTo(1);
        assertThat(state.demand()).as("busy only: nothing can run the waiting task").isEqualTo(1);
    }

    @Test
    void poolStateCountsGroupsWaitingDemandAndTheOldestWaitPerGroup() {
        send(register("cpu-1", POOL, Map.of(), 2));
        send(register("gpu-1", POOL, Map.of("gpu", "a100"), 1));
        send(at(submit("t1", POOL), 10));
        send(at(submit("t2", POOL), 20));
        send(at(submit("g1", POOL, Map.of("gpu", "a100")), 30));
        send(at(submit("t3", POOL), 40));
        send(at(submit("g2", POOL, Map.of("gpu", "a100")), 50));
        send(at(submit("h1", POOL, Map.of("gpu", "h100")), 60));

        PoolState state = queries.pool(POOL).orElseThrow();

        assertThat(state.snapshot().capacity()).isEqualTo(3);
        assertThat(state.snapshot().busy()).isEqualTo(3);
        assertThat(state.snapshot().waiting()).isEqualTo(3);
        assertThat(state.demand()).as("busy + the waiting tasks some group can serve (not h100)").isEqualTo(5);
        assertThat(state.unservable()).isEqualTo(1);
        assertThat(state.oldestWaitingSince()).isEqualTo(Events.T0.plusMillis(40));
        assertThat(state.classes()).extracting(ClassState::key, ClassState::waiting, ClassState::headTaskId,
                        ClassState::workers)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("", 1L, "t3", 2),
                        org.assertj.core.groups.Tuple.tuple("gpu=a100", 1L, "g2", 1),
                        org.assertj.core.groups.Tuple.tuple("gpu=h100", 1L, "h1", 0));
        GroupState cpu = state.groups().get(0);
        GroupState gpu = state.groups().get(1);
        assertThat(cpu.key()).isEmpty();
        assertThat(cpu.snapshot()).extracting(GroupSnapshot::capacity, GroupSnapshot::busy, GroupSnapshot::waiting)
                .containsExactly(2, 2, 1L);
        assertThat(cpu.demand()).isEqualTo(3);
        assertThat(cpu.oldestWaitingSince()).isEqualTo(Events.T0.plusMillis(40));
        assertThat(gpu.key()).isEqualTo("gpu=a100");
        assertThat(gpu.snapshot().waiting()).as("the GPU group could also run the unlabeled task").isEqualTo(2);
        assertThat(gpu.demand()).isEqualTo(3);
    }

    @Test
    void drainedWorkerLeavesCapacityButItsRunningAttemptIsReported() {
        send(register("cpu-1", POOL, Map.of(), 2));
        send(submit("t1", POOL));
        send(drain("cpu-1", POOL));

        PoolState state = queries.pool(POOL).orElseThrow();

        assertThat(state.snapshot().capacity()).isZero();
        assertThat(state.snapshot().drainingBusy()).isEqualTo(1);
    }

    @Test
    void poolsIncludeAPoolThatHasWorkersButNoTaskYet() {
        send(register("w1", "empty-pool", Map.of(), 1));
        send(submit("t1", POOL));

        assertThat(queries.pools()).containsExactly("empty-pool", POOL);
        assertThat(queries.pool("empty-pool")).get().extracting(s -> s.snapshot().capacity()).isEqualTo(1);
        assertThat(queries.pool("unknown")).isEmpty();
    }

    @Test
    void waitingLineListsTasksInLineOrderWithTheirReasonAndPlace() {
        send(register("cpu-1", POOL, Map.of(), 1));
        send(submit("t1", POOL));
        send(submit("g1", POOL, Map.of("gpu", "a100")));
        send(submit("t2", POOL));
        send(submit("t3", POOL));

        List<WaitingTask> line = queries.waiting(POOL, 10);

        assertThat(line).extracting(w -> w.task().getTask().getTaskId()).containsExactly("g1", "t2", "t3");
        assertThat(line).extracting(WaitingTask::placeInLine).containsExactly(1L, 1L, 2L);
        // The wording is the policy's; the query hands it on as the policy last wrote it.
        assertThat(line.get(0).task().getWaitingReason()).contains("gpu=a100");
        assertThat(line.get(1).task().getWaitingReason()).contains("busy");
        assertThat(queries.waiting(POOL, 2)).hasSize(2);
    }

    @Test
    void taskPagesAreNewestFirstAndFollowTheCursor() {
        send(register("cpu-1", POOL, Map.of(), 1));
        for (int i = 1; i <= 5; i++) {
            send(at(submit("t" + i, POOL), i));
        }
        send(at(submit("x1", "other"), 6));

        List<TaskRecord> first = queries.tasks(new TaskFilter(POOL, null, 2, null));
        List<TaskRecord> second = queries.tasks(new TaskFilter(POOL, null, 2, TaskCursor.at(first.get(1))));
        List<TaskRecord> waiting = queries.tasks(new TaskFilter(POOL, TaskState.WAITING, 10, null));
        List<TaskRecord> everywhere = queries.tasks(new TaskFilter(null, null, 10, null));

        assertThat(first).extracting(t -> t.getTask().getTaskId()).containsExactly("t5", "t4");
        assertThat(second).extracting(t -> t.getTask().getTaskId()).containsExactly("t3", "t2");
        assertThat(waiting).extracting(t -> t.getTask().getTaskId()).containsExactly("t5", "t4", "t3", "t2");
        assertThat(everywhere).extracting(t -> t.getTask().getTaskId()).startsWith("x1", "t5");
    }

    @Test
    void waitingTasksIncludeTheDelayedOnesOutsideEveryLineEachOnce() {
        send(register("cpu-1", POOL, Map.of(), 1));
        send(at(submit("running", POOL), 1));
        TaskSubmitted delayed = at(submit("delayed", POOL), 2);
        delayed.setNotBefore(Events.T0.plus(Duration.ofHours(1)));
        send(delayed);
        TaskSubmitted due = at(submit("due", POOL), 3);
        due.setDeadline(Events.T0.plus(Duration.ofHours(2)));
        send(due);

        List<TaskRecord> waiting = queries.tasks(new TaskFilter(POOL, TaskState.WAITING, 10, null));
        List<TaskRecord> everywhere = queries.tasks(new TaskFilter(null, TaskState.WAITING, 10, null));

        // "delayed" waits on its timer, outside the line; "due" is in the line and has a timer too.
        assertThat(queries.waiting(POOL, 10)).extracting(w -> w.task().getTask().getTaskId()).containsExactly("due");
        assertThat(waiting).extracting(t -> t.getTask().getTaskId()).containsExactly("due", "delayed");
        assertThat(everywhere).extracting(t -> t.getTask().getTaskId()).containsExactly("due", "delayed");
    }

    @Test
    void taskRecordCarriesItsAttemptsAfterCompletion() {
        send(register("cpu-1", POOL, Map.of(), 1));
        send(submit("t1", POOL));
        send(started("t1", POOL, 1, "cpu-1", 1));
        send(succeeded("t1", POOL, 1, "cpu-1", 1));

        TaskRecord task = queries.task(POOL, "t1").orElseThrow();

        assertThat(task.getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(task.getAttempts()).hasSize(1);
        assertThat(queries.task(POOL, "nope")).isEmpty();
    }

    @Test
    void workersAreListedPerPoolAndFoundById() {
        send(register("w1", POOL, Map.of("gpu", "a100"), 2));
        send(register("w2", POOL, Map.of(), 1));
        send(register("w1", "other", Map.of(), 1));

        assertThat(queries.workers(POOL)).extracting(WorkerRecord::getWorkerId).containsExactly("w1", "w2");
        assertThat(queries.workers(null)).hasSize(3);
        assertThat(queries.workersWithId("w1")).extracting(WorkerRecord::getPool).containsExactly(POOL, "other");
    }

    @Test
    void classKeysRoundTripAndIncludeIsTheGroupRule() {
        Map<String, String> labels = Map.of("zone", "eu", "gpu", "a100");

        assertThat(ClassKeys.of(labels)).isEqualTo("gpu=a100,zone=eu");
        assertThat(ClassKeys.parse("gpu=a100,zone=eu")).isEqualTo(labels);
        assertThat(ClassKeys.parse("")).isEmpty();
        assertThat(ClassKeys.parse("gpu=a100|cpu=4000;mem=8589934592")).as("what follows | is not labels")
                .isEqualTo(Map.of("gpu", "a100"));
        assertThatThrownBy(() -> ClassKeys.parse("gpu")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ClassKeys.includes(labels, Map.of("gpu", "a100"))).isTrue();
        assertThat(ClassKeys.includes(Map.of("gpu", "a100"), labels)).isFalse();
    }

    @Test
    void cursorTokensRoundTripAndRejectGarbage() {
        TaskCursor cursor = new TaskCursor(1234, "a:b");

        assertThat(TaskCursor.parse(cursor.token())).isEqualTo(cursor);
        assertThatThrownBy(() -> TaskCursor.parse("nope")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a page token");
    }

    private static TaskSubmitted at(TaskSubmitted task, long millis) {
        task.setSubmittedAt(Instant.ofEpochMilli(Events.T0.toEpochMilli() + millis));
        return task;
    }

    private void send(SpecificRecord event) {
        String pool = String.valueOf(event.get(event.getSchema().getField("pool").pos()));
        String type = event.getSchema().getName();
        if (type.startsWith("Task")) {
            submissions.pipeInput(pool, new SubmissionEvent(event));
        } else if (type.startsWith("Worker")) {
            workers.pipeInput(pool, new WorkerEvent(event));
        } else {
            completions.pipeInput(pool, new CompletionEvent(event));
        }
    }
}
