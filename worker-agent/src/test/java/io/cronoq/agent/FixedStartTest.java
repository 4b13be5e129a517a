package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.events.Assignments;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Fixed starts on the worker, without a broker: an attempt assigned with a {@code startAt} holds its slot and starts
 * at that time by the worker's clock, not before; a revoke, fence or stop while it waits means it never starts.
 */
// Alone: it checks that nothing starts during quiet spells of wall-clock time.
@Isolated
@Timeout(30)
class FixedStartTest extends FixedStartFixture {

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

        core.onEvent(Assignments.of(new AttemptRevoked("t1", POOL, 1, ID, 1L, "cancelled", T0)));
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

        core.onEvent(Assignments.of(new WorkerFenced(ID, POOL, 1L, null, null, null, "evicted: no heartbeat", T0)));
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
}
