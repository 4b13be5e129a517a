package io.cronoq.scheduler.policy;

/**
 * The pending timers of one pool's waiting tasks, earliest first: when a delayed task (not before,
 * retry backoff, a fixed start's reservation) joins its line, or when a task's deadline is near
 * enough to move it ahead. At most one timer per task; the task's record holds its time
 * ({@code timerAt}), so a timer can be removed without a scan. Kept in the store, not the heap:
 * a million tasks may wait for tomorrow.
 */
public interface TimerQueue {

    /** One timer: when it fires and for which task. */
    record Timer(long atMillis, String taskId) {}

    void add(Timer timer);

    void remove(Timer timer);

    /** The earliest timer, or {@code null} when there is none. */
    Timer first();
}
