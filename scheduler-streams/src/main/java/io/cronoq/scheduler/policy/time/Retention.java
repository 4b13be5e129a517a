package io.cronoq.scheduler.policy.time;

import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import java.time.Instant;
import java.util.List;

/**
 * How long a finished task (SUCCEEDED, FAILED, CANCELLED) stays in one pool's stores: its record
 * is forgotten {@link TimeRules#retentionMs} after it finished, with {@code TaskForgotten} in the
 * journal, so the stores hold the live tasks and a window of history rather than every task ever
 * run. Its history stays in the journal, and its id may be submitted again as a new task. Each
 * finished task has one entry in the pool's expiries, at the end of its retention; with a retention
 * of 0 there is none and nothing is forgotten. The expiries are kept in memory and rebuilt from the
 * task records whenever a pool's state is loaded, under the retention in force then: a retention
 * changed across a restart applies to the tasks that finished before it too.
 */
public final class Retention {

    private final TimerQueue expiries;
    private final PoolStore store;
    private final long retentionMs;

    public Retention(PoolStore store, TimeRules rules) {
        this.expiries = store.expiries();
        this.store = store;
        this.retentionMs = rules.retentionMs();
    }

    /** The task just finished at {@code at}: it is forgotten when its retention ends. */
    public void finished(TaskRecord task, Instant at) {
        TimerQueue.Timer expiry = expiry(task, at, retentionMs);
        if (expiry != null) {
            expiries.add(expiry);
        }
    }

    /** The expiry of a task that finished at {@code at}, kept {@code retentionMs} (0: forever, no expiry). */
    public static TimerQueue.Timer expiry(TaskRecord task, Instant at, long retentionMs) {
        return retentionMs > 0
                ? new TimerQueue.Timer(saturatedAdd(at.toEpochMilli(), retentionMs), task.getTask().getTaskId())
                : null;
    }

    /** Forgets at most {@code max} finished tasks whose retention ended by {@code now}, earliest first. */
    public void expire(Instant now, int max, List<Decision> out) {
        if (retentionMs == 0) {
            return;
        }
        for (TimerQueue.Timer expiry : expiries.takeDue(now.toEpochMilli(), max)) {
            TaskRecord task = store.task(expiry.taskId());
            if (task == null || !isFinished(task.getState())) {
                continue; // cannot happen: a finished task stays finished until it is forgotten
            }
            store.deleteTask(expiry.taskId());
            if (!task.getTask().getAfter().isEmpty() || task.getChildren() > 0 || task.getState() == TaskState.SUCCEEDED) {
                store.dependencies().forget(expiry.taskId()); // its result, its children, its parents' ends
            }
            Instant finishedAt = task.getUpdatedAt();
            out.add(Decision.journal(new TaskForgotten(expiry.taskId(), task.getState(), finishedAt),
                    "kept " + Durations.words(expiry.atMillis() - finishedAt.toEpochMilli())
                            + " after it finished (cronoq.task.retention.ms)"));
        }
    }

    /** When the next finished task is forgotten, in epoch milliseconds, or {@link Long#MAX_VALUE} when none is. */
    public long nextMillis() {
        return retentionMs == 0 ? Long.MAX_VALUE : expiries.firstMillis();
    }

    public static boolean isFinished(TaskState state) {
        return state == TaskState.SUCCEEDED || state == TaskState.FAILED || state == TaskState.CANCELLED;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }
}
