package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker library against a real scheduler on a real broker (one per class; each test has its own pool): tasks
 * run and free their slots, {@code ctx.group()} is the group's labels, drain finishes running work and takes nothing
 * new, fencing and revoking abort the local attempt, and embedded executors receive their groups' attempts.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LibraryWorkerIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static SchedulerHarness scheduler;

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final Map<String, TaskContext> contexts = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final List<AutoCloseable> toClose = new CopyOnWriteArrayList<>();

    /** Records start and end; a payload "wait" holds the attempt until {@link #release} (or its cancellation). */
    private final TaskHandler handler = ctx -> {
        contexts.put(ctx.taskId(), ctx);
        events.add("start " + ctx.taskId());
        try {
            if (ctx.payloadAsString().equals("wait")) {
                gate(ctx.taskId()).await();
            }
        } catch (InterruptedException e) {
            events.add("interrupted " + ctx.taskId());
            throw e;
        }
        events.add("end " + ctx.taskId());
        return ("done " + ctx.taskId() + " in " + ctx.group()).getBytes(StandardCharsets.UTF_8);
    };

    @BeforeAll
    static void startScheduler() throws Exception {
        scheduler = SchedulerHarness.start(broker);
    }

    @AfterAll
    static void stopScheduler() throws Exception {
        scheduler.close();
    }

    @AfterEach
    void closeWorkers() throws Exception {
        gates.values().forEach(CountDownLatch::countDown);
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    @Test
    void aTaskRunsOnALibraryWorkerAndItsCompletionFreesTheSlotForTheNext() {
        String pool = "run";
        CronoqWorker worker = track(scheduler.worker("lib-run-1", pool).label("gpu", "a100").slots(1)
                .handler(handler).build().start());
        assertThat(worker.state()).isEqualTo(State.ACTIVE);
        assertThat(worker.group()).isEqualTo(Map.of("gpu", "a100"));

        scheduler.submit("run-1", pool, Map.of("gpu", "a100"), "wait");
        scheduler.submit("run-2", pool, Map.of(), "go");
        await().until(() -> events.contains("start run-1"));
        await().until(() -> scheduler.journaled(TaskWaiting.class).stream()
                .anyMatch(w -> w.getTaskId().equals("run-2")));
        assertThat(events).as("one slot: the second task waits while the first runs").doesNotContain("start run-2");

        release("run-1");

        assertThat(scheduler.awaitFinished("run-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.awaitFinished("run-2", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(events).containsSubsequence("end run-1", "start run-2", "end run-2");
        assertThat(scheduler.result("run-1", 1)).isEqualTo("done run-1 in {gpu=a100}");
        assertThat(contexts.get("run-2").group()).as("ctx.group() is the group's labels, not the task's")
                .isEqualTo(Map.of("gpu", "a100"));
        assertThat(contexts.get("run-1").attempt()).isEqualTo(1);
        assertThat(contexts.get("run-1").generation()).isEqualTo(worker.generation());
    }

    @Test
    void drainFinishesRunningWorkTakesNothingNewThenLeaves() {
        String pool = "drain";
        CronoqWorker worker = track(scheduler.worker("lib-drain-1", pool).slots(2).handler(handler).build().start());
        scheduler.submit("drain-1", pool, Map.of(), "wait");
        await().until(() -> events.contains("start drain-1"));

        worker.drain();
        assertThat(worker.state()).isEqualTo(State.DRAINING);
        await().until(() -> scheduler.journaled(WorkerDraining.class).stream()
                .anyMatch(d -> d.getWorkerId().equals(worker.id())));
        scheduler.submit("drain-2", pool, Map.of(), "go");
        await().until(() -> scheduler.journaled(TaskWaiting.class).stream()
                .anyMatch(w -> w.getTaskId().equals("drain-2")));

        release("drain-1");

        assertThat(worker.terminated().join()).isEqualTo(State.LEFT);
        assertThat(scheduler.awaitFinished("drain-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        await().until(() -> scheduler.journaled(WorkerLeft.class).stream()
                .anyMatch(l -> l.getWorkerId().equals(worker.id())));
        assertThat(events).doesNotContain("start drain-2");
        assertThat(scheduler.assignments("drain-2")).as("nothing was assigned to the draining worker").isEmpty();

        // The task was waiting, not lost: the next worker runs it.
        track(scheduler.worker("lib-drain-2", pool).slots(1).handler(handler).build().start());
        assertThat(scheduler.awaitFinished("drain-2", 1).getWorkerId()).isEqualTo("lib-drain-2");
    }

    @Test
    void aFixedStartTaskIsAssignedAheadAndTheWorkerStartsItAtItsTime() {
        String pool = "fixed";
        // The start report at once: this test reads when the worker started the attempt from it.
        track(scheduler.worker("lib-fixed-1", pool).slots(1).startReportDelay(Duration.ZERO).handler(handler)
                .build().start());
        Instant startAt = Instant.now().truncatedTo(ChronoUnit.MILLIS).plusSeconds(5);

        scheduler.submit(TaskSubmitted.newBuilder().setTaskId("fixed-1").setPool(pool).setStartAt(startAt)
                .setStartToleranceMs(30_000L).setSubmittedAt(Instant.now()).build());

        AttemptAssigned assigned = await().until(() -> scheduler.journaled(AttemptAssigned.class).stream()
                .filter(a -> a.getTaskId().equals("fixed-1")).findFirst(), Optional::isPresent).get();
        assertThat(assigned.getStartAt()).as("assigned ahead, holding the slot until its start").isEqualTo(startAt);
        assertThat(scheduler.awaitFinished("fixed-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        AttemptStarted started = scheduler.journaled(AttemptStarted.class).stream()
                .filter(s -> s.getTaskId().equals("fixed-1")).findFirst().orElseThrow();
        assertThat(started.getAt()).as("the worker started it at its start time, not before").isAfterOrEqualTo(startAt);
        assertThat(contexts.get("fixed-1").startAt()).hasValue(startAt);
    }

    @Test
    void attemptsThatEndWithinTheStartReportDelayAreReportedByTheirOutcomeAloneAndTheSchedulerTakesThem() {
        String pool = "once";
        track(scheduler.worker("lib-once-1", pool).slots(1).startReportDelay(Duration.ofSeconds(30))
                .handler(handler).build().start());

        scheduler.submit("once-1", pool, Map.of(), "go");
        scheduler.submit("once-2", pool, Map.of(), "go");

        assertThat(scheduler.awaitFinished("once-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.awaitFinished("once-2", 1).getState()).as("the success alone freed the one slot")
                .isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.result("once-1", 1)).isEqualTo("done once-1 in {}");
        assertThat(scheduler.journaled(AttemptStarted.class)).as("no start report went out")
                .noneMatch(s -> s.getTaskId().startsWith("once-"));
    }

    @Test
    void aFencedWorkerAbortsItsStaleAttempt() {
        String pool = "fence";
        CronoqWorker worker = track(scheduler.worker("lib-fence-1", pool).slots(1).handler(handler).build().start());
        scheduler.submit("fence-1", pool, Map.of(), "wait");
        await().until(() -> events.contains("start fence-1"));

        // Another process registers under the same id: the scheduler fences generation 1 and re-queues its attempt.
        scheduler.sendWorkerEvent(pool, new WorkerRegistered(worker.id(), pool, Map.of(), 1, null, null, null, null,
                Instant.now()));

        await().until(() -> events.contains("interrupted fence-1"));
        TaskContext stale = contexts.get("fence-1");
        assertThat(stale.cancellation().reason()).hasValueSatisfying(r -> assertThat(r).contains("fenced"));
        await().until(() -> worker.state() == State.FENCED);
        assertThat(events).doesNotContain("end fence-1");
        assertThat(scheduler.journaled(WorkerFenced.class)).anyMatch(f -> f.getWorkerId().equals(worker.id())
                && f.getStaleGeneration() == 1);
        TaskFinished lost = scheduler.awaitFinished("fence-1", 1);
        assertThat(lost.getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(lost.getState()).as("re-queued as a new attempt").isEqualTo(TaskState.WAITING);
    }

    @Test
    void aCancelRevokesTheRunningAttemptAndTheSlotServesTheNextTask() {
        String pool = "revoke";
        CronoqWorker worker = track(scheduler.worker("lib-revoke-1", pool).slots(1).handler(handler).build().start());
        scheduler.submit("revoke-1", pool, Map.of(), "wait");
        await().until(() -> events.contains("start revoke-1"));

        scheduler.cancel("revoke-1", pool);

        await().until(() -> events.contains("interrupted revoke-1"));
        assertThat(contexts.get("revoke-1").cancellation().reason()).hasValue("revoked: cancelled");
        scheduler.submit("revoke-2", pool, Map.of(), "go");
        assertThat(scheduler.awaitFinished("revoke-2", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(worker.state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void embeddedExecutorsRunEachGroupsAttemptsOnTheApplicationsExecutorAndResizeWithoutRequeueing() {
        String pool = "embedded";
        ExecutorService gpuExecutor = Executors.newCachedThreadPool(r -> new Thread(r, "app-gpu"));
        ExecutorService cpuExecutor = Executors.newCachedThreadPool(r -> new Thread(r, "app-cpu"));
        Map<String, String> threads = new ConcurrentHashMap<>();
        TaskHandler recordingThread = ctx -> {
            threads.put(ctx.taskId(), Thread.currentThread().getName());
            return handler.handle(ctx);
        };
        EmbeddedExecutors embedded = scheduler.embedded("app").handler(recordingThread).build();
        toClose.add(embedded);
        toClose.add(gpuExecutor::shutdownNow);
        toClose.add(cpuExecutor::shutdownNow);
        embedded.setGroupCapacity(pool, Map.of("gpu", "a100"), 1, gpuExecutor, null);
        embedded.setGroupCapacity(pool, Map.of(), 1, cpuExecutor, null);

        scheduler.submit("emb-gpu", pool, Map.of("gpu", "a100"), "wait");
        scheduler.submit("emb-any", pool, Map.of(), "go");
        assertThat(scheduler.awaitFinished("emb-any", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        await().until(() -> events.contains("start emb-gpu"));
        assertThat(contexts.get("emb-gpu").group()).isEqualTo(Map.of("gpu", "a100"));
        assertThat(threads.get("emb-gpu")).isEqualTo("app-gpu");
        assertThat(contexts.get("emb-any").group()).as("an unlabeled task prefers the least specialized group")
                .isEqualTo(Map.of());
        assertThat(threads.get("emb-any")).isEqualTo("app-cpu");

        // Capacity changes while emb-gpu runs: it finishes as attempt 1 (not re-queued), the new capacity serves.
        embedded.setGroupCapacity(pool, Map.of("gpu", "a100"), 2, gpuExecutor, null);
        scheduler.submit("emb-gpu-2", pool, Map.of("gpu", "a100"), "go");
        scheduler.submit("emb-gpu-3", pool, Map.of("gpu", "a100"), "go");
        assertThat(scheduler.awaitFinished("emb-gpu-2", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.awaitFinished("emb-gpu-3", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        release("emb-gpu");
        TaskFinished first = scheduler.awaitFinished("emb-gpu", 1);
        assertThat(first.getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.assignments("emb-gpu")).as("never re-queued").hasSize(1);
        assertThat(embedded.capacities()).containsEntry(new EmbeddedExecutors.GroupKey(pool, Map.of("gpu", "a100")), 2);
        embedded.drain().orTimeout(30, TimeUnit.SECONDS).join();
    }

    private CronoqWorker track(CronoqWorker worker) {
        toClose.add(worker);
        return worker;
    }

    private CountDownLatch gate(String taskId) {
        return gates.computeIfAbsent(taskId, id -> new CountDownLatch(1));
    }

    private void release(String taskId) {
        gate(taskId).countDown();
    }
}
