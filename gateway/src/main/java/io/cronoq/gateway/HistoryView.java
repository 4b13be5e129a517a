package io.cronoq.gateway;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/history?pool=}: a pool's recent minutes as columns, oldest first, ready to plot.
 * Each list of a {@link Series} has one value per entry of {@code start}; the figures of a minute
 * are those at its end (of the current minute, at {@code at}).
 *
 * @param at            the gateway's time of the answer
 * @param since         from when the gateway knows the journal (it read it from there when it started)
 * @param bucketSeconds the length of one bucket (60)
 * @param start         each bucket's start, in epoch seconds
 * @param total         the pool as a whole
 * @param groups        each group (workers with exactly the same labels) seen in those minutes, by key
 */
public record HistoryView(String pool, String at, String since, long bucketSeconds, List<Long> start, Series total,
                          List<GroupSeries> groups) {

    /**
     * One pool's or group's figures per bucket.
     *
     * @param capacity        slots of ACTIVE workers
     * @param busy            attempts their workers run
     * @param workers         ACTIVE workers
     * @param waiting         waiting tasks (of a group: those it could serve; a task may count toward several)
     * @param oldestWaitingMs how long the longest-waiting of them had waited, {@code null} when none waited
     * @param placed          waits that ended in the bucket: attempts assigned in it
     * @param waitP50Ms       the median of those waits (submission, or the previous attempt's end, to assignment),
     *                        {@code null} when none ended
     * @param waitP90Ms       their 90th percentile
     * @param waitP99Ms       their 99th percentile
     */
    public record Series(List<Integer> capacity, List<Integer> busy, List<Integer> workers, List<Long> waiting,
                         List<Long> oldestWaitingMs, List<Integer> placed, List<Long> waitP50Ms,
                         List<Long> waitP90Ms, List<Long> waitP99Ms) {}

    /** One group's series: its canonical label key ({@code ""} for none), its labels and its figures. */
    public record GroupSeries(String key, Map<String, String> labels, Series series) {}
}
