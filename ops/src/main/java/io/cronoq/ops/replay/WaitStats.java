package io.cronoq.ops.replay;

import io.cronoq.events.TaskState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Wait times of one run (recorded or simulated) per group: for every attempt that was placed, the
 * time from ready (submitted, or the previous attempt's end) to assigned, under the group it was
 * placed in; plus, per pool, the tasks still waiting when the run ended.
 */
final class WaitStats {

    /** A group of a pool, by its label set ({@code a=b,c=d}, empty for none). */
    record GroupKey(String pool, String labels) implements Comparable<GroupKey> {
        @Override
        public int compareTo(GroupKey o) {
            int c = pool.compareTo(o.pool);
            return c != 0 ? c : labels.compareTo(o.labels);
        }
    }

    /** Nearest-rank percentiles of one group's waits, in ms. */
    record Percentiles(int attempts, long p50, long p90, long p99, long max) {

        static Percentiles of(List<Long> waits) {
            List<Long> sorted = new ArrayList<>(waits);
            Collections.sort(sorted);
            return new Percentiles(sorted.size(), rank(sorted, 50), rank(sorted, 90), rank(sorted, 99),
                    sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1));
        }

        private static long rank(List<Long> sorted, int percent) {
            if (sorted.isEmpty()) {
                return 0;
            }
            int rank = (int) Math.ceil(percent / 100.0 * sorted.size());
            return sorted.get(Math.max(0, rank - 1));
        }
    }

    private final Map<GroupKey, List<Long>> waits = new TreeMap<>();
    private final Map<String, Integer> waitingAtEnd = new TreeMap<>();

    private WaitStats() {}

    static WaitStats of(List<Timeline.Task> tasks) {
        WaitStats stats = new WaitStats();
        for (Timeline.Task t : tasks) {
            stats.waitingAtEnd.merge(t.pool(), t.state() == TaskState.WAITING ? 1 : 0, Integer::sum);
            for (Timeline.Attempt a : t.attempts()) {
                Long wait = a.waitMs();
                if (wait != null) {
                    stats.waits.computeIfAbsent(new GroupKey(t.pool(), Labels.format(a.group())),
                            k -> new ArrayList<>()).add(wait);
                }
            }
        }
        return stats;
    }

    /** The groups that placed at least one attempt. */
    Set<GroupKey> groups() {
        return waits.keySet();
    }

    /** Percentiles of a group (zero attempts when it placed none). */
    Percentiles percentiles(GroupKey group) {
        return Percentiles.of(waits.getOrDefault(group, List.of()));
    }

    /** Tasks of the pool still waiting when the run ended. */
    int waitingAtEnd(String pool) {
        return waitingAtEnd.getOrDefault(pool, 0);
    }
}
