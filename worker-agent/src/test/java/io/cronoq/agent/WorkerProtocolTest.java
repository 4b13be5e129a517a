package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.auth.RegistrationSignature;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.events.Assignments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker's protocol without a broker: which assignments run under which generation, what fencing, revoking,
 * draining and stopping do to running attempts, and what is reported.
 */
@Timeout(30)
class WorkerProtocolTest {

    private static final String ID = "w-1";
    private static final String POOL = "inference";
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /**
     * Longer than any handler here takes unless it is blocked, whatever the machine's load: an attempt that ends by
     * itself is reported by its outcome alone ({@link StartReportDelayTest} covers the start reports).
     */
    private static final Duration START_REPORT_DELAY = Duration.ofSeconds(10);

    private final RecordingSink sink = new RecordingSink();
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final List<TaskContext> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> interrupted = new CopyOnWriteArrayList<>();

    /** Returns "ok:<payload>", unless the payload says "block" (waits for release) or "fail"/"fatal". */
    private final TaskHandler handler = ctx -> {
        seen.add(ctx);
        switch (ctx.payloadAsString()) {
            case "block" -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    interrupted.add(ctx.taskId());
                    throw e;
                }
            }
            case "fail" -> throw new IllegalStateException("boom");
            case "fatal" -> throw new NonRetryableException("bad input");
            default -> {
            }
        }
        return ("ok:" + ctx.payloadAsString()).getBytes(StandardCharsets.UTF_8);
    };

    private final WorkerCore core = new WorkerCore(
            new WorkerSettings(ID, POOL, Map.of("gpu", "a100"), 2, Duration.ofSeconds(3), Duration.ofSeconds(5),
                    START_REPORT_DELAY, null),
            handler, executor, sink, timers, Clock.fixed(T0, ZoneOffset.UTC), new WorkerResources());

    @AfterEach
    void stop() {
        release.countDown();
        executor.shutdownNow();
        timers.shutdownNow();
    }

    @Test
    void registrationIsSignedWithItsCredentialAndUnsignedWithout() {
        WorkerCore signing = new WorkerCore(
                new WorkerSettings(ID, POOL, Map.of("gpu", "a100"), 2, Duration.ofSeconds(3), Duration.ofSeconds(5),
                        WorkerCredential.of("gpu-workers", "s3cret")),
                handler, executor, sink, timers, Clock.fixed(T0, ZoneOffset.UTC), new WorkerResources());

        core.register();
        signing.register();

        List<WorkerRegistered> published = sink.events(WorkerRegistered.class);
        assertThat(published.get(0).getSignature()).isNull();
        assertThat(published.get(1).getCredential()).isEqualTo("gpu-workers");
        assertThat(RegistrationSignature.verify(published.get(1), RegistrationSignature.secretBytes("s3cret"))).isTrue();
    }

    @Test
    void runsAnAssignmentOfItsGenerationAndReportsTheResult() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "hello"));

        AttemptSucceeded done = sink.awaitEvent(AttemptSucceeded.class, "t1");
        assertThat(new String(done.getResult().array(), StandardCharsets.UTF_8)).isEqualTo("ok:hello");
        assertThat(done.getGeneration()).isEqualTo(1);
        assertThat(sink.types()).as("it ended within the start report delay: one report")
                .containsExactly("WorkerRegistered", "AttemptSucceeded");
        assertThat(seen.get(0).group()).isEqualTo(Map.of("gpu", "a100"));
        assertThat(seen.get(0).attempt()).isEqualTo(1);
    }

    @Test
    void afterARestartSkipsEverythingReadBeforeTheAnswerToItsOwnRegistration() {
        core.register();
        Instant mine = sink.first(WorkerRegistered.class).getRegisteredAt();
        // What an earlier run of this id left in the partition: its acceptance and its (finished) assignment.
        core.onEvent(accepted(1, mine.minusSeconds(60)));
        core.onEvent(assigned("old", 1, 1, "x"));
        core.onEvent(fenced(1, 2L, null));
        assertThat(core.state()).isEqualTo(State.REGISTERING);
        core.onEvent(accepted(2, mine));
        core.onEvent(assigned("old", 1, 1, "x"));
        core.onEvent(assigned("new", 2, 2, "y"));

        sink.awaitEvent(AttemptSucceeded.class, "new");
        assertThat(core.generation()).isEqualTo(2);
        assertThat(seen).extracting(TaskContext::taskId).containsExactly("new");
    }

    @Test
    void aFencedGenerationAbortsItsAttemptsReportsNothingAndRegistersAgain() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);

        core.onEvent(fenced(1, null, null));

        await().until(() -> interrupted.contains("t1"));
        assertThat(seen.get(0).cancellation().reason()).hasValueSatisfying(r -> assertThat(r).contains("fenced"));
        assertThat(sink.events(WorkerRegistered.class)).as("registers again").hasSize(2);
        assertThat(core.state()).isEqualTo(State.REGISTERING);
        await().until(() -> core.running().isEmpty());
        assertThat(sink.events(AttemptSucceeded.class)).isEmpty();
        assertThat(sink.events(AttemptFailed.class)).as("a fenced attempt is not reported").isEmpty();
    }

    @Test
    void aFenceNamingOneAttemptAbortsOnlyThatAttempt() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        core.onEvent(assigned("t2", 1, 1, "block"));
        await().until(() -> seen.size() == 2);

        core.onEvent(fenced(1, 1L, "t1"));

        await().until(() -> interrupted.contains("t1"));
        assertThat(core.running()).containsExactly(new AttemptId("t2", 1));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void anAssignmentOfANewerGenerationAbortsTheLocalAttemptsAndStopsTheWorker() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);

        core.onEvent(assigned("t2", 1, 2, "x"));

        await().until(() -> interrupted.contains("t1"));
        assertThat(core.state()).isEqualTo(State.FENCED);
        assertThat(seen).extracting(TaskContext::taskId).containsExactly("t1");
    }

    @Test
    void aRevokeAbortsThatAttemptAndTheWorkerCarriesOn() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);

        core.onEvent(envelope(new AttemptRevoked("t1", POOL, 1, ID, 1L, "cancelled", T0)));

        await().until(() -> interrupted.contains("t1"));
        assertThat(seen.get(0).cancellation().reason()).hasValue("revoked: cancelled");
        core.onEvent(assigned("t2", 1, 1, "x"));
        sink.awaitEvent(AttemptSucceeded.class, "t2");
        assertThat(sink.events(AttemptSucceeded.class)).extracting(AttemptSucceeded::getTaskId).containsExactly("t2");
    }

    @Test
    void drainingFinishesWhatRunsTakesNothingNewThenLeaves() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);

        CompletableFuture<State> left = core.drain();
        assertThat(core.state()).isEqualTo(State.DRAINING);
        assertThat(sink.events(WorkerDraining.class)).hasSize(1);
        assertThat(left).isNotDone();

        release.countDown();
        assertThat(left.join()).isEqualTo(State.LEFT);
        core.onEvent(assigned("late", 1, 1, "x"));
        assertThat(sink.types()).containsSubsequence("WorkerDraining", "AttemptSucceeded", "WorkerLeft");
        assertThat(seen).extracting(TaskContext::taskId).containsExactly("t1");
    }

    @Test
    void aDrainedWorkerLeavesOnlyOnceItsLastReportIsWrittenAndStampsTheLeaveAfterIt() {
        // The scheduler reads completions and worker events from two topics in timestamp order: a leave
        // that overtook the last success would have that attempt lost and run again.
        CompletableFuture<Void> successWritten = sink.holdAcksOf(AttemptSucceeded.class);
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);
        CompletableFuture<State> left = core.drain();

        release.countDown();
        AttemptSucceeded done = sink.awaitEvent(AttemptSucceeded.class, "t1");
        assertThat(sink.events(WorkerLeft.class)).as("no leave before the success is written").isEmpty();
        assertThat(left).isNotDone();

        successWritten.complete(null);
        assertThat(left.join()).isEqualTo(State.LEFT);
        WorkerLeft leave = sink.first(WorkerLeft.class);
        assertThat(leave.getReason()).isEqualTo("drained");
        assertThat(leave.getAt()).isAfter(done.getAt());
    }

    @Test
    void stoppingAtOnceReportsTheRunningAttemptsFailedAndRetryable() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "block"));
        await().until(() -> seen.size() == 1);

        core.stopNow("second SIGTERM");

        AttemptFailed failed = sink.awaitEvent(AttemptFailed.class, "t1");
        assertThat(failed.getRetryable()).isTrue();
        assertThat(failed.getError()).contains("second SIGTERM");
        await().until(() -> interrupted.contains("t1"));
        assertThat(sink.types()).endsWith("WorkerLeft");
        assertThat(core.state()).isEqualTo(State.STOPPED);
    }

    @Test
    void aNonRetryableExceptionFailsForGoodAndAnyOtherRetryably() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "fail"));
        core.onEvent(assigned("t2", 1, 1, "fatal"));

        AttemptFailed retryable = sink.awaitEvent(AttemptFailed.class, "t1");
        AttemptFailed fatal = sink.awaitEvent(AttemptFailed.class, "t2");
        assertThat(retryable.getRetryable()).isTrue();
        assertThat(retryable.getError()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(fatal.getRetryable()).isFalse();
        assertThat(fatal.getError()).isEqualTo("bad input");
    }

    @Test
    void aRejectedRegistrationStopsTheWorkerWithTheReason() {
        core.register();
        Instant mine = sink.first(WorkerRegistered.class).getRegisteredAt();
        core.onEvent(envelope(new RegistrationRejected(ID, POOL, RejectionCode.PERMISSION_DENIED,
                "label gpu=a100 is not allowed for this credential", mine)));

        assertThat(core.state()).isEqualTo(State.REJECTED);
        assertThat(core.activation()).isCompletedExceptionally();
        assertThat(core.endReason()).hasValueSatisfying(r -> assertThat(r).contains("PERMISSION_DENIED")
                .contains("not allowed for this credential"));
    }

    @Test
    void heartbeatsCarryTheGenerationAndTheRunningAttempts() {
        core.heartbeat();
        assertThat(sink.events(WorkerHeartbeat.class)).as("no heartbeat without a generation").isEmpty();
        activate(3);
        core.onEvent(assigned("t1", 1, 3, "block"));
        await().until(() -> seen.size() == 1);

        core.heartbeat();

        WorkerHeartbeat beat = sink.first(WorkerHeartbeat.class);
        assertThat(beat.getGeneration()).isEqualTo(3);
        assertThat(beat.getRunning()).extracting(r -> r.getTaskId() + "#" + r.getAttempt()).containsExactly("t1#1");
    }

    @Test
    void aRepeatedAssignmentRunsOnce() {
        activate(1);
        core.onEvent(assigned("t1", 1, 1, "x"));
        sink.awaitEvent(AttemptSucceeded.class, "t1");
        core.onEvent(assigned("t1", 1, 1, "x"));
        core.onEvent(assigned("t2", 1, 1, "x"));
        sink.awaitEvent(AttemptSucceeded.class, "t2");
        assertThat(seen).extracting(TaskContext::taskId).containsExactly("t1", "t2");
        assertThat(sink.events(AttemptSucceeded.class)).extracting(AttemptSucceeded::getTaskId)
                .containsExactly("t1", "t2");
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private void activate(long generation) {
        core.register();
        core.onEvent(accepted(generation, sink.first(WorkerRegistered.class).getRegisteredAt()));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
    }

    private static AssignmentEvent accepted(long generation, Instant registeredAt) {
        return envelope(new RegistrationAccepted(ID, POOL, generation, Map.of("gpu", "a100"), 2, registeredAt));
    }

    private static AssignmentEvent fenced(long stale, Long current, String taskId) {
        return envelope(new WorkerFenced(ID, POOL, stale, current, taskId, taskId == null ? null : 1, "test fence", T0));
    }

    private static AssignmentEvent assigned(String taskId, int attempt, long generation, String payload) {
        return envelope(new AttemptAssigned(taskId, POOL, attempt, ID, generation, Map.of("gpu", "a100"),
                ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)), null, null, T0, null, null, new java.util.HashMap<>()));
    }

    private static AssignmentEvent envelope(Object event) {
        return Assignments.of(event);
    }

    /** Records what the worker publishes. */
    static final class RecordingSink implements EventSink {
        private final List<SpecificRecord> events = new CopyOnWriteArrayList<>();
        private volatile Class<?> held;
        private final CompletableFuture<Void> heldAck = new CompletableFuture<>();

        @Override
        public CompletableFuture<Void> publish(SpecificRecord event) {
            events.add(event);
            return held != null && held.isInstance(event) ? heldAck : CompletableFuture.completedFuture(null);
        }

        /** From now on events of this type are written (acknowledged) only when the returned future completes. */
        CompletableFuture<Void> holdAcksOf(Class<?> type) {
            held = type;
            return heldAck;
        }

        @Override
        public void close(Duration timeout) {
        }

        List<String> types() {
            return events.stream().map(e -> e.getSchema().getName()).filter(n -> !n.equals("WorkerHeartbeat")).toList();
        }

        <T> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }

        <T> T first(Class<T> type) {
            return events(type).get(0);
        }

        <T extends SpecificRecord> T awaitEvent(Class<T> type, String taskId) {
            await().atMost(10, TimeUnit.SECONDS).until(() -> find(type, taskId) != null);
            return find(type, taskId);
        }

        private <T extends SpecificRecord> T find(Class<T> type, String taskId) {
            return events(type).stream().filter(e -> taskId.equals(String.valueOf(e.get(e.getSchema()
                    .getField("taskId").pos())))).findFirst().orElse(null);
        }
    }
}
