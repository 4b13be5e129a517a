package io.cronoq.ops.replay;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.replay.JournalFold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The per-task timeline a journal tells: when each task was submitted, and for each attempt when
 * it became ready (submitted, or its previous attempt ended), was assigned, started and finished,
 * on which worker and group, how long it waited and ran, and how it ended. Built from a
 * {@link JournalFold} of the journal, so it says exactly what the scheduler recorded.
 */
final class Timeline {

    /** One task: its attempts in order; {@code waitingReason} is set while it waits. */
    record Task(String pool, String taskId, Map<String, String> labels, TaskState state, Instant submittedAt,
                List<Attempt> attempts, String waitingReason) {}

    /**
     * One attempt. {@code readyAt} is when it started waiting for a slot: the submission for the
     * first attempt (for a task with parents, when they released it), the end of the previous attempt for a retry.
     */
    record Attempt(int attempt, String workerId, Map<String, String> group, Instant readyAt, Instant assignedAt,
                   Instant startedAt, Instant finishedAt, AttemptOutcome outcome) {

        /** Ready to assigned, in ms; null when a time is missing. */
        Long waitMs() {
            return between(readyAt, assignedAt);
        }

        /** Started to finished (assigned to finished when the start was not reported), in ms; null while running. */
        Long runMs() {
            return between(startedAt != null ? startedAt : assignedAt, finishedAt);
        }

        private static Long between(Instant from, Instant to) {
            return from == null || to == null ? null : Duration.between(from, to).toMillis();
        }
    }

    private Timeline() {}

    /**
     * Folds the entries and returns the timeline of every task, by submission time (journal order on
     * ties), forgotten ones included.
     */
    static List<Task> of(Iterable<JournalEntry> entries) {
        JournalFold fold = JournalFold.keepingHistory();
        fold.applyAll(entries);
        return of(fold);
    }

    /** The timeline of every task of a fold, by submission time (fold order on ties). */
    static List<Task> of(JournalFold fold) {
        List<Task> tasks = new ArrayList<>(fold.tasks().size());
        for (JournalFold.Task t : fold.tasks().values()) {
            List<Attempt> attempts = new ArrayList<>(t.attempts().size());
            Instant ready = t.readyAt() != null ? t.readyAt() : t.submittedAt(); // a child: when its parents released it
            for (JournalFold.Attempt a : t.attempts()) {
                attempts.add(new Attempt(a.attempt(), a.workerId(), a.group(), ready, a.assignedAt(), a.startedAt(),
                        a.finishedAt(), a.outcome()));
                ready = a.finishedAt();
            }
            tasks.add(new Task(t.pool(), t.taskId(), t.labels(), t.state(), t.submittedAt(), List.copyOf(attempts),
                    t.waitingReason()));
        }
        tasks.sort(Comparator.comparing(Task::submittedAt, Comparator.nullsLast(Comparator.naturalOrder())));
        return tasks;
    }
}
