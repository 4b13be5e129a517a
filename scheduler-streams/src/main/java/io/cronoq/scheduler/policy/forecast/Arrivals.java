package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.TaskSubmitted;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How tasks of one class and tenant arrive: submissions counted per minute over the last hour, and
 * the last submission as a template of what arrives. A minute with more than three times the median
 * plus five is a burst minute, and adjacent burst minutes are one burst: the steady rate counts only
 * the other minutes (one burst of a thousand tasks must not read as a thousand an hour), and the
 * bursts are kept apart, by size and by when they came (the mean time of their submissions), so
 * that a forecast lets bursts recur as large as lately and
 * <ul>
 *   <li>on their cadence, when at least three came evenly spaced (every gap within a tenth of the
 *       median gap, or a minute) and the next is not overdue by more than that: as a job run every
 *       quarter hour submits;</li>
 *   <li>otherwise at random, as often over the whole hour, even when less of it was seen: two bursts
 *       in the first quarter hour are not eight an hour.</li>
 * </ul>
 * Minutes before the pool was first heard of say nothing and are left out; so is the current one, not
 * over yet, but for one thing: a burst under way in it has come, and the cadence's next is the one
 * after it. Not thread-safe; {@link RunTimes} guards it.
 */
final class Arrivals {

    static final int MINUTES = 60;
    private static final long MINUTE_MS = 60_000;
    /** How many evenly spaced bursts make a cadence. */
    static final int CADENCE_BURSTS = 3;

    private final long[] perMinute = new long[MINUTES];
    /** Per minute, the sum of its submissions' offsets into it (ms): with the count, their mean time. */
    private final double[] offsets = new double[MINUTES];
    /** The latest minute counted into {@link #perMinute}, or {@code Long.MIN_VALUE} before the first. */
    private long minute = Long.MIN_VALUE;
    private TaskSubmitted template;

    /** Counts a task submitted (heard) at {@code heard}. */
    void submitted(TaskSubmitted task, long heard) {
        long now = Math.floorDiv(heard, MINUTE_MS);
        if (minute == Long.MIN_VALUE || now - minute >= MINUTES) {
            Arrays.fill(perMinute, 0);
            Arrays.fill(offsets, 0);
        } else {
            for (long m = minute + 1; m <= now; m++) {
                perMinute[slot(m)] = 0;
                offsets[slot(m)] = 0;
            }
        }
        minute = Math.max(minute, now);
        if (now > minute - MINUTES) {
            perMinute[slot(now)]++;
            offsets[slot(now)] += heard - now * MINUTE_MS;
        }
        template = task;
    }

    /**
     * The stream as seen at {@code atMillis}, from the complete minutes since {@code firstHeard}; {@code null}
     * when none arrived in them.
     */
    RunTimes.Stream stream(long atMillis, long firstHeard) {
        if (minute == Long.MIN_VALUE) {
            return null;
        }
        long now = Math.floorDiv(atMillis, MINUTE_MS);
        // A minute counts when it is over, within the hour, after the pool was first heard of.
        long from = Math.max(now - MINUTES, Math.floorDiv(firstHeard, MINUTE_MS) + 1);
        if (from >= now) {
            return null;
        }
        long[] counts = new long[(int) (now - from)];
        for (long m = from; m < now; m++) {
            counts[(int) (m - from)] = m > minute || minute - m >= MINUTES ? 0 : perMinute[slot(m)];
        }
        long[] sorted = counts.clone();
        Arrays.sort(sorted);
        long median = sorted[(sorted.length - 1) / 2];
        long threshold = 3 * median + 5;
        long count = 0;
        long minutes = 0;
        List<Long> sizes = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        long size = 0; // of the burst under way, the steady part of its minutes aside
        long submitted = 0; // in the burst's minutes, all told
        double timeSum = 0; // the sum of those submissions' times
        for (int i = 0; i <= counts.length; i++) {
            if (i < counts.length && counts[i] > threshold) {
                long m = from + i;
                size += counts[i] - median;
                submitted += counts[i];
                timeSum += counts[i] * (double) (m * MINUTE_MS) + offsets[slot(m)];
                continue;
            }
            if (size > 0) { // a burst ended with the minute before
                sizes.add(size);
                times.add(Math.round(timeSum / submitted));
                size = 0;
                submitted = 0;
                timeSum = 0;
            }
            if (i < counts.length) {
                count += counts[i];
                minutes++;
            }
        }
        if (count == 0 && sizes.isEmpty()) {
            return null;
        }
        long current = minute == now ? perMinute[slot(now)] : 0;
        if (current > threshold && counts[counts.length - 1] <= threshold) {
            // A burst under way in the current minute has come: the cadence's next is the one after it.
            times.add(Math.round(now * MINUTE_MS + offsets[slot(now)] / current));
        }
        return new RunTimes.Stream(template, count, minutes * MINUTE_MS, List.copyOf(sizes), MINUTES * MINUTE_MS,
                cadence(times, atMillis));
    }

    /**
     * When bursts come on a cadence: at least {@link #CADENCE_BURSTS} of them, every gap within a tenth of
     * the median gap (a minute at least) of it, and the next not overdue by more than that; else {@code null}.
     */
    static RunTimes.Cadence cadence(List<Long> times, long atMillis) {
        if (times.size() < CADENCE_BURSTS) {
            return null;
        }
        long[] gaps = new long[times.size() - 1];
        for (int i = 1; i < times.size(); i++) {
            gaps[i - 1] = times.get(i) - times.get(i - 1);
        }
        long[] sortedGaps = gaps.clone();
        Arrays.sort(sortedGaps);
        long period = sortedGaps[(sortedGaps.length - 1) / 2];
        long tolerance = Math.max(MINUTE_MS, period / 10);
        long spread = 0;
        for (long gap : gaps) {
            spread = Math.max(spread, Math.abs(gap - period));
        }
        if (spread > tolerance) {
            return null;
        }
        long next = times.get(times.size() - 1) + period;
        if (atMillis > next + tolerance) {
            return null; // the burst due did not come: the cadence is broken
        }
        return new RunTimes.Cadence(next, period, spread);
    }

    private static int slot(long minute) {
        return (int) Math.floorMod(minute, (long) MINUTES);
    }
}
