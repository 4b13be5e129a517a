package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.TaskSubmitted;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How tasks of one class and tenant arrive: submissions counted per minute over the last hour, and
 * the last submission as a template of what arrives. A minute with more than three times the median
 * plus five is a burst: the steady rate counts only the other minutes (one burst of a thousand
 * tasks must not read as a thousand an hour), and the bursts are kept apart, by size, so that a
 * forecast lets bursts recur as often and as large as lately — as often over the whole hour, even
 * when less of it was seen: two bursts in the first quarter hour are not eight an hour. Minutes before the pool was first
 * heard of say nothing and are left out; so is the current one, not over yet. Not thread-safe;
 * {@link RunTimes} guards it.
 */
final class Arrivals {

    static final int MINUTES = 60;
    private static final long MINUTE_MS = 60_000;

    private final long[] perMinute = new long[MINUTES];
    /** The latest minute counted into {@link #perMinute}, or {@code Long.MIN_VALUE} before the first. */
    private long minute = Long.MIN_VALUE;
    private TaskSubmitted template;

    /** Counts a task submitted (heard) at {@code heard}. */
    void submitted(TaskSubmitted task, long heard) {
        long now = Math.floorDiv(heard, MINUTE_MS);
        if (minute == Long.MIN_VALUE || now - minute >= MINUTES) {
            Arrays.fill(perMinute, 0);
        } else {
            for (long m = minute + 1; m <= now; m++) {
                perMinute[slot(m)] = 0;
            }
        }
        minute = Math.max(minute, now);
        if (now > minute - MINUTES) {
            perMinute[slot(now)]++;
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
        // A minute counts when it is over, within the half hour, after the pool was first heard of.
        long from = Math.max(now - MINUTES, Math.floorDiv(firstHeard, MINUTE_MS) + 1);
        List<Long> counts = new ArrayList<>();
        for (long m = from; m < now; m++) {
            counts.add(m > minute || minute - m >= MINUTES ? 0 : perMinute[slot(m)]);
        }
        if (counts.isEmpty()) {
            return null;
        }
        List<Long> sorted = new ArrayList<>(counts);
        sorted.sort(null);
        long median = sorted.get((sorted.size() - 1) / 2);
        long burst = 3 * median + 5;
        long count = 0;
        long minutes = 0;
        List<Long> bursts = new ArrayList<>();
        for (long c : counts) {
            if (c <= burst) {
                count += c;
                minutes++;
            } else {
                bursts.add(c - median); // the steady part of that minute aside
            }
        }
        if (count == 0 && bursts.isEmpty()) {
            return null;
        }
        return new RunTimes.Stream(template, count, minutes * MINUTE_MS, List.copyOf(bursts), MINUTES * MINUTE_MS);
    }

    private static int slot(long minute) {
        return (int) Math.floorMod(minute, (long) MINUTES);
    }
}
