package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.agent.FixedStartFixture.SettableClock;
import io.cronoq.agent.WorkerProtocolTest.RecordingSink;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.events.Assignments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The start report delay, without a broker: an attempt that ends within it is reported once, by its outcome; one
 * that runs on reports its start when the delay ends, stamped with the time it started, then its outcome; an
 * attempt aborted within it never reports a start.
 */
// Alone: it compares when events are published with when the handler started, on the wall clock.
@Isolated
@Timeout(30)
class StartReportDelayTest {

    private static final String ID = "w-1";
    private static final String POOL = "inference";
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    /** Far longer than an instant handler takes, however loaded the machine: what ends by itself ends within it. */
    private static final Duration LONG = Duration.ofSeconds(10);

    private final SettableClock clock = new SettableClock(START);
    private final RecordingSink sink = new RecordingSink();
    /** When each kind of event was first published (System.nanoTime). */
    private final Map<String, Long> publishedAt = new ConcurrentHashMap<>();
    private final EventSink stampingSink = new EventSink() {
        @Override
        public java.util.concurrent.CompletableFuture<Void> publish(SpecificRecord event) {
            publishedAt.putIfAbsent(event.getSchema().getName(), System.nanoTime());
            return sink.publish(event);
        }

        @Override
        public void close(Duration timeout) {
        }
    };
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicLong handlerStartedAt = new AtomicLong();

    /** "fail" throws, "block" waits for release, "progress" reports progress, "run on" lives past the delay. */
    private final TaskHandler handler = ctx -> {
        handlerStartedAt.set(System.nanoTime());
        switch (ctx.payloadAsString()) {
            case "fail" -> throw new IllegalStateException("boom");
            case "block" -> release.await();
            case "progress" -> ctx.progress(0.5, "half way");
            case "run on" -> {
                clock.set(START.plusSeconds(3600)); // time passes while it runs
                await().atMost(10, TimeUnit.SECONDS).until(() -> !sink.events(AttemptStarted.class).isEmpty());
            }
            default -> {
            }
        }
        return ctx.payload();
    };

    StartReportDelayTest() {
        timers.setRemoveOnCancelPolicy(true); // as the worker's connection has it: a cancelled report leaves no task
    }

    @AfterEach
    void stop() {
        release.countDown();
        executor.shutdownNow();
        timers.shutdownNow();
    }

    @Test
    void anInstantAttemptIsReportedOnceByItsSuccess() {
        WorkerCore core = activated(LONG);

        core.onEvent(assigned("t1", "go"));

        sink.awaitEvent(AttemptSucceeded.class, "t1");
        await().until(() -> core.running().isEmpty());
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptSucceeded");
        assertThat(timers.getQueue()).as("the held start report was dropped, not just delayed").isEmpty();
    }

    @Test
    void anInstantFailureIsReportedOnceByItsFailure() {
        WorkerCore core = activated(LONG);

        core.onEvent(assigned("t1", "fail"));

        AttemptFailed failed = sink.awaitEvent(AttemptFailed.class, "t1");
        await().until(() -> core.running().isEmpty());
        assertThat(failed.getError()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptFailed");
        assertThat(timers.getQueue()).isEmpty();
    }

    @Test
    void anAttemptRunningPastTheDelayReportsItsStartWithTheTimeItStartedThenItsSuccess() {
        Duration delay = Duration.ofMillis(50);
        WorkerCore core = activated(delay);

        core.onEvent(assigned("t1", "run on"));

        AttemptSucceeded done = sink.awaitEvent(AttemptSucceeded.class, "t1");
        AttemptStarted started = sink.first(AttemptStarted.class);
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptStarted", "AttemptSucceeded");
        assertThat(started.getAt()).as("when it started, not when the report went out").isEqualTo(START);
        assertThat(done.getAt()).isEqualTo(START.plusSeconds(3600));
        assertThat(Duration.ofNanos(publishedAt.get("AttemptStarted") - handlerStartedAt.get()))
                .as("held back for the delay").isGreaterThanOrEqualTo(delay.minusMillis(5));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
    }

    @Test
    void progressWithinTheDelaySendsTheStartFirst() {
        WorkerCore core = activated(LONG);

        core.onEvent(assigned("t1", "progress"));

        sink.awaitEvent(AttemptSucceeded.class, "t1");
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptStarted", "AttemptProgress",
                "AttemptSucceeded");
        assertThat(timers.getQueue()).isEmpty();
    }

    @Test
    void aRevokeWithinTheDelayMeansNoStartReportEver() {
        WorkerCore core = activated(LONG);
        core.onEvent(assigned("t1", "block"));
        await().until(() -> handlerStartedAt.get() != 0);

        core.onEvent(Assignments.of(new AttemptRevoked("t1", POOL, 1, ID, 1L, "cancelled", START)));

        await().until(() -> core.running().isEmpty());
        assertThat(timers.getQueue()).as("the held start report was dropped").isEmpty();
        assertThat(sink.types()).containsExactly("WorkerRegistered");
    }

    @Test
    void stoppingWithinTheDelayReportsOnlyTheFailure() {
        WorkerCore core = activated(LONG);
        core.onEvent(assigned("t1", "block"));
        await().until(() -> handlerStartedAt.get() != 0);

        core.stopNow("second SIGTERM");

        AttemptFailed failed = sink.awaitEvent(AttemptFailed.class, "t1");
        assertThat(failed.getRetryable()).isTrue();
        assertThat(timers.getQueue()).isEmpty();
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptFailed", "WorkerLeft");
    }

    @Test
    void aZeroDelaySendsTheStartAtOnce() {
        WorkerCore core = activated(Duration.ZERO);

        core.onEvent(assigned("t1", "go"));

        sink.awaitEvent(AttemptSucceeded.class, "t1");
        assertThat(sink.types()).containsExactly("WorkerRegistered", "AttemptStarted", "AttemptSucceeded");
    }

    @Test
    void theDelayIsTwentyMillisecondsUnlessSetAndNeverNegative() {
        TaskHandler any = ctx -> null;
        assertThat(CronoqWorker.builder().pool(POOL).handler(any).options().settings().startReportDelay())
                .isEqualTo(Duration.ofMillis(20));
        assertThat(CronoqWorker.builder().pool(POOL).handler(any).startReportDelay(Duration.ZERO).options()
                .settings().startReportDelay()).isZero();
        assertThatThrownBy(() -> CronoqWorker.builder().pool(POOL).handler(any)
                .startReportDelay(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("startReportDelay");
        EmbeddedExecutors embedded = EmbeddedExecutors.builder().name("app").handler(any)
                .startReportDelay(Duration.ofMillis(-1)).build();
        assertThatThrownBy(() -> embedded.setCapacity(POOL, 1)).as("checked for each group, before it connects")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("startReportDelay");
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private WorkerCore activated(Duration startReportDelay) {
        WorkerCore core = new WorkerCore(new WorkerSettings(ID, POOL, Map.of(), 2, Duration.ofSeconds(3),
                Duration.ofSeconds(5), startReportDelay, null), handler, executor, stampingSink, timers, clock,
                new WorkerResources());
        core.register();
        core.onEvent(Assignments.of(new RegistrationAccepted(ID, POOL, 1L, Map.of(), 2,
                sink.first(WorkerRegistered.class).getRegisteredAt())));
        assertThat(core.state()).isEqualTo(State.ACTIVE);
        return core;
    }

    private static AssignmentEvent assigned(String taskId, String payload) {
        return Assignments.of(new AttemptAssigned(taskId, POOL, 1, ID, 1L, Map.of(),
                ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)), null, null, START, null, null, new java.util.HashMap<>()));
    }
}
