package io.cronoq.scheduler.policy;

import java.util.Map;

/**
 * One group of a pool at one moment: what it can run and what it runs.
 *
 * @param labels       the labels every worker of the group carries (sorted by name)
 * @param capacity     slots of its ACTIVE workers
 * @param busy         attempts on its ACTIVE workers; never more than {@code capacity}
 * @param workers      ACTIVE workers
 * @param waiting      tasks waiting that a worker of this group could serve (it carries their labels
 *                     and satisfies their resource request), but for those a concurrency key or a
 *                     rate limit holds back (more workers would not start them)
 * @param drainingBusy attempts still finishing on its DRAINING workers (out of capacity and busy)
 */
public record GroupSnapshot(Map<String, String> labels, int capacity, int busy, int workers, long waiting,
                            int drainingBusy) {

    /** Slots that could take an attempt now. */
    public int free() {
        return capacity - busy;
    }
}
