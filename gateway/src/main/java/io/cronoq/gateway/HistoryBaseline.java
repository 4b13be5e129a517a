package io.cronoq.gateway;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.query.TaskCursor;
import io.cronoq.scheduler.query.TaskFilter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the history must know at its start that only earlier journal entries tell — workers
 * registered before it, the attempts they were running then and the tasks already waiting — read
 * from the scheduler's stores and put as journal entries dated at that start, so that
 * {@link JournalHistory}'s fold can take them like any others. The stores hold the present: a
 * worker that is still registered, or that was heard from after the start, was registered then;
 * an attempt running now that was assigned before the start ran then; a task waiting now since
 * before the start waited then. What began before the start and ended before the gateway read
 * the stores is not seen (its minutes undercount busy and waiting until the journal's own entries
 * take over).
 */
final class HistoryBaseline {

    private static final Logger log = LoggerFactory.getLogger(HistoryBaseline.class);
    private static final int PAGE = 500;

    private HistoryBaseline() {}

    /**
     * Applies to {@code history} the state at its start (now − the minutes it keeps), as the stores
     * tell it, and says from when it is known; returns that start.
     *
     * @throws ApiException while the stores cannot answer (the history is left as it was)
     */
    static Instant apply(JournalHistory history, StateReader stores, Clock clock) {
        Instant start = clock.instant().minus(Duration.ofMinutes(history.minutes()));
        List<JournalEntry> entries = at(start, stores);
        entries.forEach(history::apply);
        history.since(start);
        log.info("Journal history: {} entries of the state at {} taken from the stores", entries.size(), start);
        return start;
    }

    /** The entries that set the state at {@code start}, as the stores tell it. */
    static List<JournalEntry> at(Instant start, StateReader reader) {
        List<JournalEntry> entries = new ArrayList<>();
        for (WorkerView w : reader.workers(null)) {
            boolean registeredBefore = Instant.parse(w.registeredAt()).isBefore(start);
            boolean present = w.state().equals("ACTIVE") || w.state().equals("DRAINING")
                    || (w.lastHeartbeat() != null && !Instant.parse(w.lastHeartbeat()).isBefore(start));
            if (!registeredBefore || !present) {
                continue;
            }
            entries.add(entry(w.pool(), start, WorkerRegistered.newBuilder().setWorkerId(w.id()).setPool(w.pool())
                    .setLabels(w.labels()).setSlots(w.slots()).setRegisteredAt(Instant.parse(w.registeredAt()))
                    .build()));
            entries.add(entry(w.pool(), start, WorkerAccepted.newBuilder().setWorkerId(w.id())
                    .setGeneration(w.generation()).build()));
            for (WorkerView.RunningView running : w.running()) {
                Optional<TaskView> task = reader.task(running.taskId(), w.pool());
                task.ifPresent(t -> running(t, running.attempt(), start, entries));
            }
        }
        TaskCursor before = null;
        do {
            TaskPage page = reader.tasks(new TaskFilter(null, TaskState.WAITING, PAGE, before));
            for (TaskView t : page.tasks()) {
                if (t.waiting() != null && t.waiting().since() != null
                        && Instant.parse(t.waiting().since()).isBefore(start)) {
                    task(t, t.attempts().size(), start, entries);
                }
            }
            before = page.next() == null ? null : TaskCursor.parse(page.next());
        } while (before != null);
        return entries;
    }

    /** A task whose attempt {@code number} was running at {@code start}. */
    private static void running(TaskView t, int number, Instant start, List<JournalEntry> entries) {
        TaskView.AttemptView attempt = t.attempts().stream().filter(a -> a.attempt() == number).findFirst()
                .orElse(null);
        if (attempt == null || attempt.assignedAt() == null || !Instant.parse(attempt.assignedAt()).isBefore(start)) {
            return; // assigned later: the journal says so
        }
        task(t, number - 1, start, entries);
        entries.add(entry(t.pool(), start, assigned(t, attempt)));
    }

    /** The submission of a task and its first {@code finished} attempts, each ended and retried. */
    private static void task(TaskView t, int finished, Instant start, List<JournalEntry> entries) {
        entries.add(entry(t.pool(), start, TaskSubmitted.newBuilder().setTaskId(t.id()).setPool(t.pool())
                .setLabels(t.labels()).setSubmittedAt(Instant.parse(t.submittedAt())).build()));
        for (TaskView.AttemptView a : t.attempts()) {
            if (a.attempt() > finished || a.assignedAt() == null) {
                continue;
            }
            entries.add(entry(t.pool(), start, assigned(t, a)));
            Instant end = a.finishedAt() == null ? start : Instant.parse(a.finishedAt());
            entries.add(entry(t.pool(), end, TaskFinished.newBuilder().setTaskId(t.id()).setAttempt(a.attempt())
                    .setWorkerId(a.worker()).setOutcome(a.outcome() == null ? AttemptOutcome.LOST
                            : AttemptOutcome.valueOf(a.outcome())).setState(TaskState.WAITING).build()));
        }
    }

    private static AttemptAssigned assigned(TaskView t, TaskView.AttemptView a) {
        return AttemptAssigned.newBuilder().setTaskId(t.id()).setPool(t.pool()).setAttempt(a.attempt())
                .setWorkerId(a.worker()).setGeneration(a.generation()).setGroup(a.group())
                .setAssignedAt(Instant.parse(a.assignedAt())).build();
    }

    private static JournalEntry entry(String pool, Instant at, Object event) {
        return JournalEntry.newBuilder().setPool(pool).setAt(at).setEvent(event).build();
    }
}
