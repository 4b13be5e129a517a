package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.agent.WorkerProtocolTest.RecordingSink;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.events.Assignments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;

/**
 * The worker of the fixed-start tests, without a broker: a core on a settable clock, a recording sink, and the
 * handler and executor threads they watch.
 */
abstract class FixedStartFixture {

    static final String ID = "w-1";
    static final String POOL = "inference";
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final Instant START = T0.plusSeconds(60);
    /** Long enough for a waiting attempt to have started had it ignored its start time (it re-reads every 100 ms). */
    static final Duration QUIET = Duration.ofMillis(600);

    final SettableClock clock = new SettableClock(T0);
    final RecordingSink sink = new RecordingSink();
    final ExecutorService pool = Executors.newCachedThreadPool();
    final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    /** The thread of the latest attempt the executor picked up. */
    final AtomicReference<Thread> attemptThread = new AtomicReference<>();
    final List<String> handled = new CopyOnWriteArrayList<>();
    final List<Instant> handledAt = new CopyOnWriteArrayList<>();
    final List<TaskContext> contexts = new CopyOnWriteArrayList<>();

    final TaskHandler handler = ctx -> {
        handled.add(ctx.taskId());
        handledAt.add(clock.instant());
        contexts.add(ctx);
        return ctx.payload();
    };

    WorkerCore core = newCore(handler);

    @AfterEach
    void stop() {
        pool.shutdownNow();
        timers.shutdownNow();
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /**
     * A core whose start reports go out at once (no start report delay): these tests are about when an attempt
     * starts, which its {@code AttemptStarted} says.
     */
    WorkerCore newCore(TaskHandler taskHandler) {
        return new WorkerCore(
                new WorkerSettings(ID, POOL, Map.of("gpu", "a100"), 2, Duration.ofSeconds(3), Duration.ofSeconds(5),
                        Duration.ZERO, null),
                taskHandler, runnable -> pool.execute(() -> {
                    attemptThread.set(Thread.currentThread());
                    runnable.run();
                }), sink, timers, clock, new WorkerResources());
    }

    void activate() {
        core.register();
        core.onEvent(Assignments.of(new RegistrationAccepted(ID, POOL, 1L, Map.of("gpu", "a100"), 2,
                sink.first(WorkerRegistered.class).getRegisteredAt())));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
    }

    /** Until the attempt's thread waits for its start (rather than for the executor to pick it up). */
    void awaitWaiting() {
        await().until(() -> attemptThread.get() != null
                && attemptThread.get().getState() == Thread.State.TIMED_WAITING);
    }

    static AssignmentEvent assigned(String taskId, Instant startAt) {
        return Assignments.of(new AttemptAssigned(taskId, POOL, 1, ID, 1L, Map.of("gpu", "a100"),
                ByteBuffer.wrap(("payload of " + taskId).getBytes(StandardCharsets.UTF_8)), null, null, T0, startAt, null, new java.util.HashMap<>()));
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
