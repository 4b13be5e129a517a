package io.cronoq.bench.chaos;

import io.cronoq.events.AttemptAssigned;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The arrival times ({@link System#nanoTime()}) of the assignments simulated workers received, by pool, and
 * the pauses in them: how long a pool went without an assignment, the measure of a scheduling outage.
 */
final class AssignmentGaps {

    private final Map<String, List<Long>> arrivals = new ConcurrentHashMap<>();

    /** Notes an assignment's arrival now (a listener for {@code SimulatedWorkers.onAssigned}). */
    void record(AttemptAssigned a) {
        arrivals.computeIfAbsent(a.getPool(), p -> new CopyOnWriteArrayList<>()).add(System.nanoTime());
    }

    /**
     * When scheduling of {@code pool} resumed after an outage that began at {@code start}: the first assignment
     * after a gap of at least {@code gapNanos} that began no earlier than {@code gapNanos} before {@code start}
     * (assignments committed just before a crash may still arrive after it); 0 while it has not.
     */
    long resumeAfter(String pool, long start, long gapNanos) {
        long previous = Long.MIN_VALUE;
        for (long t : arrivals.getOrDefault(pool, List.of())) {
            if (previous != Long.MIN_VALUE && previous >= start - gapNanos && t - previous >= gapNanos && t > start) {
                return t;
            }
            previous = t;
        }
        return 0;
    }

    /** The longest time {@code pool} went without an assignment between {@code from} and {@code to}. */
    long longestGap(String pool, long from, long to) {
        long previous = from;
        long longest = 0;
        for (long t : arrivals.getOrDefault(pool, List.of())) {
            if (t <= from) {
                continue;
            }
            if (t > to) {
                return Math.max(longest, t - previous);
            }
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Math.max(longest, to - previous);
    }

    /** The longest gap of any of {@code pools} between {@code from} and {@code to}, in ms. */
    long longestGapMs(List<String> pools, long from, long to) {
        return pools.stream().mapToLong(p -> TimeUnit.NANOSECONDS.toMillis(longestGap(p, from, to))).max().orElse(-1);
    }
}
