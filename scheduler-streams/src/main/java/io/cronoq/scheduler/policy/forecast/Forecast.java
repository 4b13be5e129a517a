package io.cronoq.scheduler.policy.forecast;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * When a pool's waiting tasks will start, as one forecast saw it at {@code madeAt}: per waiting task an
 * {@link Estimate}; {@code reached} is how far ahead its futures ran (every future reached at least
 * that far, or ran out of things to do), {@code futures} how many futures it sampled. Immutable.
 */
public record Forecast(String pool, Instant madeAt, Instant reached, int futures, Map<String, Estimate> estimates) {

    public Forecast {
        estimates = Collections.unmodifiableMap(estimates);
    }

    /**
     * When one task will start (be given a slot), and how sure that is.
     *
     * @param position how many tasks the forecast places before it on the workers it can use (its
     *                 median over the futures); at least that many when it starts beyond the forecast
     * @param p10      the start only one future in ten comes before, or {@code null} when nothing can be said
     * @param p50      the median start, or {@code null}
     * @param p90      the start nine futures in ten come before, or {@code null}
     * @param reason   in one line, what the estimate rests on, or why there is none
     */
    public record Estimate(Long position, Instant p10, Instant p50, Instant p90, String reason) {

        /** A task blocked on its parents: it holds no place in any line until they end. */
        public static final Estimate BLOCKED = none(null,
                "it waits for its parents: it is estimated once they have ended as it asks");

        /** No estimate, for this reason. */
        public static Estimate none(Long position, String reason) {
            return new Estimate(position, null, null, null, reason);
        }

        /** Whether it gives a start. */
        public boolean known() {
            return p50 != null;
        }
    }

    /** The estimate of one task, or {@code null} when the forecast did not see it waiting. */
    public Estimate estimate(String taskId) {
        return estimates.get(taskId);
    }

    /**
     * The waiting tasks by median estimated start: how many start in each of {@code bins} equal spans
     * from {@code madeAt} to the latest median start, and how many have no estimate. For the chart of
     * when a backlog clears.
     */
    public Backlog backlog(int bins) {
        List<Instant> starts = new ArrayList<>();
        int unknown = 0;
        for (Estimate e : estimates.values()) {
            if (e.known()) {
                starts.add(e.p50());
            } else {
                unknown++;
            }
        }
        Collections.sort(starts);
        long from = madeAt.toEpochMilli();
        long to = starts.isEmpty() ? from : Math.max(from + 1, starts.get(starts.size() - 1).toEpochMilli() + 1);
        long width = Math.max(1, (to - from + bins - 1) / bins);
        long[] counts = new long[bins];
        for (Instant s : starts) {
            int bin = (int) Math.min(bins - 1, Math.max(0, (s.toEpochMilli() - from) / width));
            counts[bin]++;
        }
        List<Backlog.Bin> out = new ArrayList<>(bins);
        long left = starts.size() + unknown;
        for (int i = 0; i < bins; i++) {
            left -= counts[i];
            out.add(new Backlog.Bin(Instant.ofEpochMilli(from + i * width), Instant.ofEpochMilli(from + (i + 1) * width),
                    counts[i], left));
        }
        return new Backlog(out, unknown);
    }

    /**
     * A pool's backlog over time.
     *
     * @param bins    spans of time, each with how many tasks start in it and how many still wait after it
     * @param unknown waiting tasks with no estimate (beyond the forecast, or that nothing can run)
     */
    public record Backlog(List<Bin> bins, long unknown) {
        /** One span of time: {@code starting} tasks start in it; {@code stillWaiting} wait past its end. */
        public record Bin(Instant from, Instant to, long starting, long stillWaiting) {}
    }
}
