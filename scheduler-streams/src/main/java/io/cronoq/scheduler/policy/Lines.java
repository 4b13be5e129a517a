package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where one pool's waiting tasks are kept: in the line of their requirement class at the place
 * {@link Ordering#rank} gives them, or outside every line on a timer until they may join one (not
 * before, a retry's backoff, a fixed start's reservation). A task in a line may have a timer too:
 * when its deadline comes near it moves ahead. Each change is written to the task's record and the
 * store here, so the record always says where the task is ({@code rank}, {@code timerAt}). A task
 * that starts waiting records when twice: in the policy's time of the step ({@code waitingSince},
 * what views show) and on the scheduler's own clock ({@code queuedAt}, read from {@code heard}),
 * where its preemption grace counts from whatever clock its producer has.
 */
record Lines(ClassIndex classes, TimerQueue timers, PoolStore store, TimeRules rules, Supplier<Instant> heard) {

    /** Puts a task into its class's line at the place {@link Ordering#rank} gives it now. */
    void enqueue(TaskRecord task, WaitClass c, Instant at, String reason) {
        TaskSubmitted s = task.getTask();
        task.setState(TaskState.WAITING);
        startsWaiting(task, at);
        task.setWaitingReason(reason);
        task.setUpdatedAt(at);
        task.setRank(Ordering.rank(s, rules, at));
        Instant urgentFrom = Ordering.urgentFrom(s, rules);
        if (s.getStartAt() == null && urgentFrom != null && at.isBefore(urgentFrom)) {
            setTimer(task, urgentFrom);
        } else {
            dropTimer(task);
        }
        store.putTask(task);
        classes.add(c, Ordering.place(task), s.getTaskId());
        c.joined(s.getTimeoutMs());
    }

    /** A task waits outside every line until {@code until} (not before, backoff, a fixed start's reservation). */
    void delay(TaskRecord task, Instant until, Instant at, String reason) {
        task.setState(TaskState.WAITING);
        task.setRank(Ordering.NOT_IN_LINE);
        startsWaiting(task, at);
        task.setWaitingReason(reason);
        task.setUpdatedAt(at);
        setTimer(task, until);
        store.putTask(task);
    }

    /** A waiting task leaves its line, or its timer (it was cancelled); the caller stores its new state. */
    void remove(TaskRecord task, WaitClass c) {
        if (task.getRank() != Ordering.NOT_IN_LINE) {
            classes.remove(c, Ordering.place(task));
        }
        dropTimer(task);
    }

    /** A task in line whose deadline came near takes its place among the urgent tasks of its line. */
    void moveAhead(TaskRecord task, WaitClass c, Instant now, String reason) {
        classes.remove(c, Ordering.place(task));
        task.setRank(Ordering.rank(task.getTask(), rules, now));
        task.setWaitingReason(reason);
        task.setUpdatedAt(now);
        store.putTask(task);
        classes.add(c, Ordering.place(task), task.getTask().getTaskId());
        c.joined(task.getTask().getTimeoutMs());
    }

    /**
     * Takes at most {@code max} timers due at {@code now}, earliest first, and returns their waiting
     * tasks with the timer gone from the task's record (not stored yet: the caller decides what
     * follows, and stores). A task still in its line ({@link #inLine}) came near its deadline; any
     * other joins its line now.
     */
    List<TaskRecord> due(Instant now, int max) {
        List<TaskRecord> due = new ArrayList<>();
        for (TimerQueue.Timer timer : timers.takeDue(now.toEpochMilli(), max)) {
            TaskRecord task = store.task(timer.taskId());
            if (task == null || task.getState() != TaskState.WAITING || task.getTimerAt() == null
                    || task.getTimerAt().toEpochMilli() != timer.atMillis()) {
                continue; // cannot happen: a timer leaves with its task's record
            }
            task.setTimerAt(null);
            due.add(task);
        }
        return due;
    }

    /** Whether a waiting task is in its class's line (not waiting on a timer outside it). */
    static boolean inLine(TaskRecord task) {
        return task.getRank() != Ordering.NOT_IN_LINE;
    }

    /** The task no longer waits (it is assigned): its timer, if any, goes. */
    void dropTimer(TaskRecord task) {
        if (task.getTimerAt() != null) {
            timers.remove(new TimerQueue.Timer(task.getTimerAt().toEpochMilli(), task.getTask().getTaskId()));
            task.setTimerAt(null);
        }
    }

    /**
     * The task starts waiting at {@code at} in the policy's time, heard now on the scheduler's clock
     * ({@code at} where no input or tick is being applied: this package's tests).
     */
    private void startsWaiting(TaskRecord task, Instant at) {
        Instant now = heard.get();
        task.setWaitingSince(at);
        task.setQueuedAt(now != null ? now : at);
    }

    private void setTimer(TaskRecord task, Instant at) {
        dropTimer(task);
        timers.add(new TimerQueue.Timer(at.toEpochMilli(), task.getTask().getTaskId()));
        task.setTimerAt(at);
    }
}
