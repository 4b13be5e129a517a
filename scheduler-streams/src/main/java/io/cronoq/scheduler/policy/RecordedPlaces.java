package io.cronoq.scheduler.policy;

import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.LineKeys;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.policy.time.Retention;
import java.time.Instant;

/**
 * Where a task's record says the task is in its pool's indexes: its line and place, its timer, the
 * end of its retention. The policy keeps each record saying so at every input (see {@link Lines}
 * and {@link Retention}), so the indexes are a function of the task records: a store that keeps
 * only the records rebuilds the lines, timers and expiries from them, and gets what the policy
 * put there.
 */
public final class RecordedPlaces {

    private RecordedPlaces() {}

    /** The line entry of a task waiting in its line, or {@code null} (not waiting, or waiting on a timer outside every line). */
    public static WaitingQueue.Entry lineEntry(TaskRecord task) {
        if (task.getState() != TaskState.WAITING || !Lines.inLine(task)) {
            return null;
        }
        TaskSubmitted s = task.getTask();
        return new WaitingQueue.Entry(lineKey(s), Ordering.place(task), s.getTaskId());
    }

    /** The pending timer of a waiting task, or {@code null}. */
    public static TimerQueue.Timer timer(TaskRecord task) {
        if (task.getState() != TaskState.WAITING || task.getTimerAt() == null) {
            return null;
        }
        return new TimerQueue.Timer(task.getTimerAt().toEpochMilli(), task.getTask().getTaskId());
    }

    /** When a finished task is forgotten under these rules, or {@code null} (not finished, or kept forever). */
    public static TimerQueue.Timer expiry(TaskRecord task, TimeRules rules) {
        if (!Retention.isFinished(task.getState())) {
            return null;
        }
        return Retention.expiry(task, task.getUpdatedAt(), rules.retentionMs());
    }

    /** The rank a task would take joining its line at {@code at} under these rules (lower goes first). */
    public static long rankJoining(TaskSubmitted s, TimeRules rules, Instant at) {
        return Ordering.rank(s, rules, at);
    }

    /** The key of the line a task waits in: its requirement's, in its tenant's lines, with the limits it names. */
    public static String lineKey(TaskSubmitted s) {
        return LineKeys.of(Requirement.keyOf(s), s.getTenant(), s.getConcurrency(), s.getRateLimits());
    }
}
