package io.cronoq.ops.replay;

import io.cronoq.events.TaskState;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Wait times of one run (recorded or simulated) per group and per tenant: for every attempt that
 * was placed, the time from ready (submitted, or the previous attempt's end) to assigned, under the
 * group it was placed in and its task's tenant; plus, per pool and per tenant, the tasks still
 * waiting when the run ended.
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

    /** A tenant of a pool. */
    record TenantKey(String pool, String tenant) implements Comparable<TenantKey> {
        @Override
        public int compareTo(TenantKey o) {
            int c = pool.compareTo(o.pool);
            return c != 0 ? c : tenant.compareTo(o.tenant);
        }
    }

    private final Map<GroupKey, List<Long>> waits = new TreeMap<>();
    private final Map<String, Integer> waitingAtEnd = new TreeMap<>();
    private final Map<TenantKey, List<Long>> tenantWaits = new TreeMap<>();
    private final Map<TenantKey, Integer> tenantWaitingAtEnd = new TreeMap<>();

    private WaitStats() {}

    /** The waits of these tasks, every one counted under the tenant {@code default}. */
    static WaitStats of(List<Timeline.Task> tasks) {
        return of(tasks, t -> SharingRules.DEFAULT_TENANT);
    }

    /** The waits of these tasks, per group and per tenant ({@code tenantOf} tells a task's). */
    static WaitStats of(List<Timeline.Task> tasks, Function<Timeline.Task, String> tenantOf) {
        WaitStats stats = new WaitStats();
        for (Timeline.Task t : tasks) {
            int waiting = t.state() == TaskState.WAITING ? 1 : 0;
            TenantKey tenant = new TenantKey(t.pool(), tenantOf.apply(t));
            stats.waitingAtEnd.merge(t.pool(), waiting, Integer::sum);
            stats.tenantWaitingAtEnd.merge(tenant, waiting, Integer::sum);
            List<Long> ofTenant = stats.tenantWaits.computeIfAbsent(tenant, k -> new ArrayList<>());
            for (Timeline.Attempt a : t.attempts()) {
                Long wait = a.waitMs();
                if (wait != null) {
                    stats.waits.computeIfAbsent(new GroupKey(t.pool(), Labels.format(a.group())),
                            k -> new ArrayList<>()).add(wait);
                    ofTenant.add(wait);
                }
            }
        }
        return stats;
    }

    /** The tenants with at least one task, placed or not. */
    Set<TenantKey> tenants() {
        return tenantWaits.keySet();
    }

    /** Percentiles of a tenant's waits (zero attempts when none of its attempts was placed). */
    Percentiles percentiles(TenantKey tenant) {
        return Percentiles.of(tenantWaits.getOrDefault(tenant, List.of()));
    }

    /** Tasks of the tenant still waiting when the run ended. */
    int waitingAtEnd(TenantKey tenant) {
        return tenantWaitingAtEnd.getOrDefault(tenant, 0);
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
