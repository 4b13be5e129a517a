package io.cronoq.scheduler.policy;

import java.util.List;

/**
 * One pool at one moment, as autoscaling and dashboards read it: capacity and busy slots are sums
 * over its groups; DRAINING workers count in neither (their slots will not take new work), their
 * remaining attempts are in {@code drainingBusy}.
 *
 * @param pool         the pool
 * @param capacity     slots of ACTIVE workers
 * @param busy         attempts on ACTIVE workers
 * @param waiting      tasks waiting for a slot
 * @param groups       every group, ordered by its canonical label key
 * @param drainingBusy attempts still finishing on DRAINING workers
 * @param blocked      tasks waiting for their parents: they hold no slot and are not in {@code waiting}
 */
public record PoolSnapshot(String pool, int capacity, int busy, long waiting, List<GroupSnapshot> groups,
                           int drainingBusy, long blocked) {

    /** A pool with no blocked task. */
    public PoolSnapshot(String pool, int capacity, int busy, long waiting, List<GroupSnapshot> groups, int drainingBusy) {
        this(pool, capacity, busy, waiting, groups, drainingBusy, 0);
    }

    /** Slots that could take an attempt now. */
    public int free() {
        return capacity - busy;
    }
}
