package io.cronoq.gateway;

import io.cronoq.scheduler.policy.match.LabelSet;
import java.util.List;
import java.util.Map;

/**
 * One tenant of a pool, as {@code /v1/tenants} and each pool of the snapshot show it: a tenant with
 * a policy (a weight other than 1, a quota), a slot held or a task waiting.
 *
 * @param weight             its weight in the fair share (1 unless set)
 * @param slotsInUse         slots its attempts hold (on ACTIVE and DRAINING workers)
 * @param gpusInUse          GPUs its attempts asked for
 * @param fairShare          the slots its weight entitles it to among the tenants that hold or wait: the
 *                           pool's slots × its weight ÷ their weights (0 when it neither holds nor waits)
 * @param dominantShare      its larger part of the pool's slots or GPUs, divided by its weight; a freed slot
 *                           goes to the tenant with the smallest
 * @param waiting            its tasks in line
 * @param oldestWaitingSince since when its longest-waiting first-in-line task waits, {@code null} when none waits
 * @param oldestWaitingMs    how long that is by the gateway's clock, {@code null} when none waits
 * @param quotas             its quotas, each with what it holds in the quota's scope
 */
public record TenantView(String tenant, double weight, int slotsInUse, int gpusInUse, double fairShare,
                         double dominantShare, long waiting, String oldestWaitingSince, Long oldestWaitingMs,
                         List<QuotaView> quotas) {

    /**
     * One quota of a tenant: within its scope (the workers carrying all of {@code labels}) the tenant
     * gets {@code guaranteed} slots first and holds at most {@code max}.
     *
     * @param scope the labels as one canonical key ({@code gpu=a100,zone=eu}), {@code pool} for the whole pool
     * @param max   {@code null} for no bound
     * @param inUse slots the tenant holds in the scope now
     */
    public record QuotaView(Map<String, String> labels, String scope, int guaranteed, Integer max, int inUse) {

        /** The scope of a quota without labels: every worker of the pool. */
        static final String WHOLE_POOL = "pool";

        /** The scope of a quota over these labels: their canonical key, or {@value #WHOLE_POOL} for none. */
        static String scope(Map<String, String> labels) {
            return labels == null || labels.isEmpty() ? WHOLE_POOL : LabelSet.key(labels);
        }
    }
}
