package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.agent.WorkerProtocolTest.RecordingSink;
import io.cronoq.agent.process.ChildProcessRunner;
import io.cronoq.agent.process.ProcessTaskHandler;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fixed starts on the worker, without a broker: an attempt assigned with a {@code startAt} holds its slot and starts
 * at that time by the worker's clock, not before; a revoke, fence or stop while it waits means it never starts.
 */
@Timeout(30)
class FixedStartTest {

    private static final String ID = "w-1";
    private static final String POOL = "inference";
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant START = T0.plusSeconds(60);
    /** Long enough for a waiting attempt to have started had it ignored its start time (it re-reads every 100 ms). */
    private static final Duration QUIET = Duration.ofMillis(600);

    private final SettableClock clock = new SettableClock(T0);
    private final RecordingSink sink = new RecordingSink();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** The thread of the latest attempt the executor picked up. */
    private final AtomicReference<Thread> attemptThread = new AtomicReference<>();
    private final List<String> handled = new CopyOnWriteArrayList<>();
    private final List<Instant> handledAt = new CopyOnWriteArrayList<>();
    private final List<TaskContext> contexts = new CopyOnWriteArrayList<>();

    private final TaskHandler handler = ctx -> {
        handled.add(ctx.taskId());
        handledAt.add(clock.instant());
        contexts.add(ctx);
        return ctx.payload();
    };

    private WorkerCore core = newCore(handler);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void anAttemptIsNotStartedBeforeItsStartAtAndStartsAtIt() {
        activate();
        core.onEvent(assigned("t1", START));
        awaitWaiting();

        clock.set(START.minusMillis(1));
        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> handled.isEmpty()
                && sink.events(AttemptStarted.class).isEmpty());
        assertThat(core.running()).as("it holds its slot while it waits").containsExactly(new AttemptId("t1", 1));
        core.heartbeat();
        assertThat(sink.first(WorkerHeartbeat.class).getRunning()).extracting(r -> r.getTaskId() + "#" + r.getAttempt())
                .as("the heartbeat counts it").containsExactly("t1#1");

        clock.set(START);

        AttemptStarted started = sink.awaitEvent(AttemptStarted.class, "t1");
        assertThat(started.getAt()).as("the actual start").isAfterOrEqualTo(START);
        sink.awaitEvent(AttemptSucceeded.class, "t1");
        assertThat(handledAt).singleElement().satisfies(at -> assertThat(at).isAfterOrEqualTo(START));
        assertThat(contexts.get(0).startAt()).hasValue(START);
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptStarted", "AttemptSucceeded");
    }

    @Test
    void anAttemptWhoseStartAtHasPassedStartsAtOnce() {
        activate();
        clock.set(START.plusSeconds(5));

        core.onEvent(assigned("late", START));

        sink.awaitEvent(AttemptSucceeded.class, "late");
        assertThat(sink.first(AttemptStarted.class).getAt()).isEqualTo(START.plusSeconds(5));
    }

    @Test
    void anAttemptRevokedWhileItWaitsNeverStartsAndFreesItsSlot() {
        activate();
        core.onEvent(assigned("t1", START));
        awaitWaiting();

        core.onEvent(new AssignmentEvent(new AttemptRevoked("t1", POOL, 1, ID, 1L, "cancelled", T0)));
        await().until(() -> core.running().isEmpty());
        clock.set(START.plusSeconds(1));

        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> handled.isEmpty()
                && sink.events(AttemptStarted.class).isEmpty());
        assertThat(sink.events(AttemptSucceeded.class)).isEmpty();
        assertThat(sink.events(AttemptFailed.class)).as("a revoked attempt is not reported").isEmpty();
        assertThat(core.state()).isEqualTo(State.ACTIVE);
        core.onEvent(assigned("t2", null));
        sink.awaitEvent(AttemptSucceeded.class, "t2");
        assertThat(handled).containsExactly("t2");
    }

    @Test
    void anAttemptFencedWhileItWaitsNeverStarts() {
        activate();
        core.onEvent(assigned("t1", START));
        awaitWaiting();

        core.onEvent(new AssignmentEvent(new WorkerFenced(ID, POOL, 1L, null, null, null, "evicted: no heartbeat", T0)));
        await().until(() -> core.running().isEmpty());
        clock.set(START.plusSeconds(1));

        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> handled.isEmpty()
                && sink.events(AttemptStarted.class).isEmpty());
        assertThat(sink.events(AttemptFailed.class)).as("a fenced attempt is not reported").isEmpty();
        assertThat(sink.events(WorkerRegistered.class)).as("it registers again").hasSize(2);
    }

    @Test
    void stoppingAtOnceWhileAnAttemptWaitsReportsItFailedAndRetryableWithoutStartingIt() {
        activate();
        core.onEvent(assigned("t1", START));
        awaitWaiting();

        core.stopNow("second SIGTERM");

        AttemptFailed failed = sink.awaitEvent(AttemptFailed.class, "t1");
        assertThat(failed.getRetryable()).isTrue();
        assertThat(failed.getError()).contains("second SIGTERM");
        clock.set(START.plusSeconds(1));
        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> handled.isEmpty()
                && sink.events(AttemptStarted.class).isEmpty());
        assertThat(core.state()).isEqualTo(State.STOPPED);
    }

    @Test
    void aDrainLetsAWaitingAttemptStartAtItsTimeThenLeaves() {
        activate();
        core.onEvent(assigned("t1", START));
        awaitWaiting();

        var left = core.drain();
        assertThat(core.state()).isEqualTo(State.DRAINING);
        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> !left.isDone() && handled.isEmpty());

        clock.set(START);

        assertThat(left.join()).isEqualTo(State.LEFT);
        assertThat(handled).containsExactly("t1");
        assertThat(sink.types()).containsSubsequence("WorkerDraining", "AttemptStarted", "AttemptSucceeded",
                "WorkerLeft");
    }

    @Test
    void theProcessAgentStartsTheChildAtTheStartTime(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve("started");
        core = newCore(new ProcessTaskHandler(List.of("sh", "-c", "printf %s \"$CRONOQ_START_AT\" > started; cat"),
                new ChildProcessRunner(null, dir), null));
        activate();
        core.onEvent(assigned("p1", START));
        awaitWaiting();

        clock.set(START.minusMillis(1));
        await().during(QUIET).atMost(QUIET.multipliedBy(3)).until(() -> !Files.exists(marker));

        clock.set(START);

        AttemptSucceeded done = sink.awaitEvent(AttemptSucceeded.class, "p1");
        assertThat(StandardCharsets.UTF_8.decode(done.getResult()).toString()).isEqualTo("payload of p1");
        assertThat(Files.readString(marker)).isEqualTo(Long.toString(START.toEpochMilli()));
        assertThat(sink.first(AttemptStarted.class).getAt()).isAfterOrEqualTo(START);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private WorkerCore newCore(TaskHandler taskHandler) {
        return new WorkerCore(
                new WorkerSettings(ID, POOL, Map.of("gpu", "a100"), 2, Duration.ofSeconds(3), Duration.ofSeconds(5)),
                taskHandler, runnable -> pool.execute(() -> {
                    attemptThread.set(Thread.currentThread());
                    runnable.run();
                }), sink, clock, new WorkerResources());
    }

    private void activate() {
        core.register();
        core.onEvent(new AssignmentEvent(new RegistrationAccepted(ID, POOL, 1L, Map.of("gpu", "a100"), 2,
                sink.first(WorkerRegistered.class).getRegisteredAt())));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
    }

    /** Until the attempt's thread waits for its start (rather than for the executor to pick it up). */
    private void awaitWaiting() {
        await().until(() -> attemptThread.get() != null
                && attemptThread.get().getState() == Thread.State.TIMED_WAITING);
    }

    private static AssignmentEvent assigned(String taskId, Instant startAt) {
        return new AssignmentEvent(new AttemptAssigned(taskId, POOL, 1, ID, 1L, Map.of("gpu", "a100"),
                ByteBuffer.wrap(("payload of " + taskId).getBytes(StandardCharsets.UTF_8)), null, null, T0, startAt));
    }

    /** A clock the test moves; the worker reads it from its own threads. */
    static final class SettableClock extends Clock {
        private volatile Instant now;

        SettableClock(Instant start) {
            this.now = start;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
