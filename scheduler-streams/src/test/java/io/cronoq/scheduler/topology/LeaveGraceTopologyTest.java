package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.topology.JournalEntries.all;
import static io.cronoq.scheduler.topology.JournalEntries.only;
import static io.cronoq.scheduler.topology.JournalEntries.types;
import static io.cronoq.scheduler.fixtures.Events.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A worker's leave read before the reports it sent first, as the scheduler may read them now that
 * its stream task does not idle: the leave goes on the workers topic, the reports on the completions
 * topic, and here the leave is piped first. The wall clock is the test's (it starts at {@code T0};
 * the scheduler ticks every second).
 */
class LeaveGraceTopologyTest {

    private static final String POOL = "p";

    private final SchedulerDriver scheduler = new SchedulerDriver(Map.of(), T0);
    private final List<JournalEntry> journal = new ArrayList<>();
    private Instant clock = T0;

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aLeaveReadBeforeTheSuccessItsWorkerSentFirstLosesNothingAndTheTaskRunsOnce() {
        scheduler.send(register("w1", T0));
        scheduler.send(task("t1", T0));
        scheduler.send(register("w2", T0)); // free: where a lost t1 would run again
        AttemptAssigned a1 = only(read(), AttemptAssigned.class);
        assertThat(a1.getWorkerId()).isEqualTo("w1");
        scheduler.send(started(a1, T0.plusMillis(100)));
        advanceTo(T0.plusSeconds(2));
        assertThat(types(read())).containsExactly("AttemptStarted");

        // w1 succeeded at 2.1 s and left at 2.2 s; the scheduler reads the leave first.
        scheduler.send(leave("w1", T0.plusMillis(2_200)));
        List<JournalEntry> leave = read();
        assertThat(types(leave)).containsExactly("WorkerLeft");
        WorkerRecord leaving = scheduler.worker(POOL, "w1");
        assertThat(leaving.getState()).isEqualTo(WorkerState.DRAINING);
        assertThat(leaving.getLeftAt()).as("heard on the scheduler's clock").isEqualTo(T0.plusSeconds(2));
        assertThat(leaving.getRunning()).hasSize(1);
        scheduler.send(succeeded(a1, T0.plusMillis(2_100)));

        List<JournalEntry> success = read();
        assertThat(types(success)).containsExactly("AttemptSucceeded", "TaskFinished", "WorkerRemoved");
        WorkerRemoved removed = only(success, WorkerRemoved.class);
        assertThat(removed.getState()).isEqualTo(WorkerState.LEFT);
        assertThat(removed.getReason()).isEqualTo("drained");
        advanceTo(T0.plusSeconds(10)); // past the grace: nothing is left to lose
        assertThat(read()).isEmpty();

        List<TaskFinished> finished = all(journal, TaskFinished.class);
        assertThat(finished).extracting(TaskFinished::getOutcome).containsExactly(AttemptOutcome.SUCCEEDED);
        assertThat(all(journal, AttemptAssigned.class)).as("t1 ran once").hasSize(1);
        assertThat(scheduler.task("t1").getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.task("t1").getAttempts()).extracting(AttemptRecord::getOutcome)
                .containsExactly(AttemptOutcome.SUCCEEDED);
        assertThat(scheduler.worker(POOL, "w1").getState()).isEqualTo(WorkerState.LEFT);
        assertThat(scheduler.worker(POOL, "w1").getRunning()).isEmpty();
        assertFoldIsStores();
    }

    @Test
    void aGraceThatEndsOnTheSchedulersClockLosesWhatTheWorkerStillHolds() {
        scheduler.send(register("w1", T0));
        scheduler.send(task("t1", T0));
        scheduler.send(register("w2", T0));
        AttemptAssigned a1 = only(read(), AttemptAssigned.class);
        advanceTo(T0.plusSeconds(2));

        // Stamped an hour ago by the worker's clock: the grace counts from when it is heard, 2 s.
        scheduler.send(leave("w1", T0.minus(Duration.ofHours(1))));
        read();
        advanceTo(T0.plusSeconds(6));
        assertThat(read()).as("4 s into a grace of 5 s").isEmpty();
        advanceTo(T0.plusSeconds(7));

        List<JournalEntry> over = read();
        assertThat(types(over)).containsExactly("WorkerRemoved", "TaskFinished", "AttemptAssigned");
        assertThat(only(over, WorkerRemoved.class).getState()).isEqualTo(WorkerState.LEFT);
        TaskFinished lost = only(over, TaskFinished.class);
        assertThat(lost.getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(lost.getState()).isEqualTo(TaskState.WAITING);
        AttemptAssigned again = only(over, AttemptAssigned.class);
        assertThat(again.getAttempt()).isEqualTo(2);
        assertThat(again.getWorkerId()).isEqualTo("w2");
        // The report that comes after the grace is stale.
        scheduler.send(succeeded(a1, T0.plusSeconds(8)));
        assertThat(types(read())).containsExactly("InputRejected", "WorkerFenced");
        assertFoldIsStores();
    }

    private void assertFoldIsStores() {
        JournalEntries.assertFoldIsStores(journal, scheduler, POOL);
    }

    private void advanceTo(Instant instant) {
        scheduler.advance(Duration.between(clock, instant));
        clock = instant;
    }

    /** The journal since the last read, kept for the fold. */
    private List<JournalEntry> read() {
        List<JournalEntry> entries = scheduler.journal();
        journal.addAll(entries);
        scheduler.assignments();
        return entries;
    }




    private static WorkerRegistered register(String id, Instant at) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setLabels(Map.of()).setSlots(1)
                .setRegisteredAt(at).build();
    }

    private static WorkerLeft leave(String id, Instant at) {
        return WorkerLeft.newBuilder().setWorkerId(id).setPool(POOL).setGeneration(1L).setReason("drained").setAt(at)
                .build();
    }

    private static TaskSubmitted task(String id, Instant at) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(Map.of())
                .setPayload(ByteBuffer.wrap(id.getBytes())).setSubmittedAt(at).build();
    }

    private static AttemptStarted started(AttemptAssigned a, Instant at) {
        return AttemptStarted.newBuilder().setTaskId(a.getTaskId()).setPool(POOL).setAttempt(a.getAttempt())
                .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(at).build();
    }

    private static AttemptSucceeded succeeded(AttemptAssigned a, Instant at) {
        return AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(POOL).setAttempt(a.getAttempt())
                .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(at).build();
    }
}
