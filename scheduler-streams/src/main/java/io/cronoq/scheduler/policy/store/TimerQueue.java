package io.cronoq.scheduler.policy.store;

import java.util.ArrayList;
import java.util.List;

/**
 * The pending timers of one pool's waiting tasks, earliest first: when a delayed task (not before,
 * retry backoff, a fixed start's reservation) joins its line, or when a task's deadline is near
 * enough to move it ahead. At most one timer per task; the task's record holds its time
 * ({@code timerAt}), so a timer can be removed without a scan, and the timers can be rebuilt from the
 * records.
 */
public interface TimerQueue {

    /** One timer: when it fires and for which task. */
    record Timer(long atMillis, String taskId) {}

    void add(Timer timer);

    void remove(Timer timer);

    /** The earliest timer, or {@code null} when there is none. */
    Timer first();

    /** The earliest {@code max} timers, earliest first, without removing them (fewer when there are fewer). */
    List<Timer> first(int max);

    /** When the earliest timer fires, in epoch milliseconds, or {@link Long#MAX_VALUE} when there is none. */
    default long firstMillis() {
        Timer first = first();
        return first == null ? Long.MAX_VALUE : first.atMillis();
    }

    /** Removes and returns the timers due at {@code nowMillis}, earliest first, at most {@code max}. */
    default List<Timer> takeDue(long nowMillis, int max) {
        List<Timer> due = new ArrayList<>();
        while (due.size() < max) {
            Timer first = first();
            if (first == null || first.atMillis() > nowMillis) {
                break;
            }
            remove(first);
            due.add(first);
        }
        return due;
    }
}
