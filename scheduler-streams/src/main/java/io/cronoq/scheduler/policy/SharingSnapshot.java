package io.cronoq.scheduler.policy;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * How one pool is shared at one moment: what {@code /v1/tenants}, the snapshot, the metrics and
 * {@code cronoq tenants} show.
 *
 * @param pool              the pool
 * @param preemption        whether a tenant below its guarantee takes borrowed slots back
 * @param preemptionGraceMs how long such a tenant waits before it does
 * @param slots             slots of the pool's ACTIVE workers
 * @param gpus              GPUs of the pool's ACTIVE workers
 * @param tenants           every tenant with a policy, a slot held or a task waiting, by name
 */
public record SharingSnapshot(String pool, boolean preemption, long preemptionGraceMs, int slots, int gpus,
                              List<TenantShare> tenants) {

    /**
     * One tenant of the pool.
     *
     * @param tenant             its name
     * @param weight             its weight (1 by default)
     * @param slotsInUse         slots its attempts hold (on ACTIVE and DRAINING workers)
     * @param gpusInUse          GPUs its attempts requested
     * @param fairShare          the slots its weight entitles it to among the tenants with demand (holding
     *                           or waiting): the pool's slots × its weight ÷ their weights; 0 without demand
     * @param dominantShare      its larger part of the pool's slots or GPUs, divided by its weight: a freed
     *                           slot goes to the tenant with the smallest
     * @param waiting            its tasks in line
     * @param oldestWaitingSince since when its longest-waiting first-in-line task waits, or {@code null}
     * @param quotas             its quotas, with what it holds in each scope
     */
    public record TenantShare(String tenant, double weight, int slotsInUse, int gpusInUse, double fairShare,
                              double dominantShare, long waiting, Instant oldestWaitingSince, List<QuotaUse> quotas) {}

    /**
     * One quota of a tenant.
     *
     * @param labels     its scope: workers carrying all these labels (empty: the whole pool)
     * @param guaranteed slots it gets first there
     * @param max        slots it may hold there at most, or {@code null} for no bound
     * @param inUse      slots it holds there now
     */
    public record QuotaUse(Map<String, String> labels, int guaranteed, Integer max, int inUse) {}
}
