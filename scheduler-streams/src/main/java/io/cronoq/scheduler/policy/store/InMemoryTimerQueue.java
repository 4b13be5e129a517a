package io.cronoq.scheduler.policy.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/** A {@link TimerQueue} in memory, for tests, benchmarks and simulation; the topology keeps it in RocksDB. */
public final class InMemoryTimerQueue implements TimerQueue {

    private final TreeSet<Timer> timers = new TreeSet<>(
            Comparator.comparingLong(Timer::atMillis).thenComparing(Timer::taskId));

    @Override
    public void add(Timer timer) {
        timers.add(timer);
    }

    @Override
    public void remove(Timer timer) {
        timers.remove(timer);
    }

    @Override
    public Timer first() {
        return timers.isEmpty() ? null : timers.first();
    }

    /** Every pending timer, earliest first (for inspection and tests). */
    public List<Timer> all() {
        return new ArrayList<>(timers);
    }
}
