package io.cronoq.scheduler.policy.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * A {@link TimerQueue} wholly in memory, earliest first: the one of tests, benchmarks and simulation (the
 * topology keeps only the front of its queues in memory, the rest on disk, in {@code PoolIndex}). One thread
 * writes; others may read it at the same time.
 */
public final class InMemoryTimerQueue implements TimerQueue {

    private final ConcurrentSkipListSet<Timer> timers = new ConcurrentSkipListSet<>(
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
        Iterator<Timer> it = timers.iterator();
        return it.hasNext() ? it.next() : null;
    }

    @Override
    public List<Timer> first(int max) {
        List<Timer> first = new ArrayList<>(Math.min(max, 64));
        for (Iterator<Timer> it = timers.iterator(); it.hasNext() && first.size() < max; ) {
            first.add(it.next());
        }
        return first;
    }

    /** The pending timers, earliest first; a read-only view. */
    public NavigableSet<Timer> pending() {
        return Collections.unmodifiableNavigableSet(timers);
    }

    /** Every pending timer, earliest first (for inspection and tests). */
    public List<Timer> all() {
        return new ArrayList<>(timers);
    }
}
