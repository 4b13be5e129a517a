package io.cronoq.scheduler.query;

import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot;
import java.time.Instant;
import java.util.List;

/**
 * One pool as its stores hold it: the policy's own {@link PoolSnapshot} plus what autoscalers and
 * dashboards need on top — demand, the oldest wait, and the state of each group and requirement class.
 *
 * @param snapshot           capacity, busy and waiting of the pool and of each group, as the policy computes them
 * @param groups             each group of {@code snapshot.groups()} with its key, demand and oldest wait (same order)
 * @param classes            each requirement class that has waiting tasks, ordered by key
 * @param demand             busy slots plus the waiting tasks some group of the pool can serve: what an autoscaler targets
 * @param unservable         waiting tasks whose required labels no group of the pool carries (a worker must join first)
 * @param oldestWaitingSince since when the longest-waiting head of a line waits, or {@code null} when nothing waits
 * @param sharing            how the pool is shared between its tenants, read in the same pass
 * @param heldByLimits       waiting tasks a concurrency key or rate limit holds back: in neither demand nor
 *                           unservable, since more workers would not start them
 * @param limits             the pool's concurrency keys and rate limits, read in the same pass
 */
public record PoolState(PoolSnapshot snapshot, List<GroupState> groups, List<ClassState> classes, long demand,
                        long unservable, Instant oldestWaitingSince, SharingSnapshot sharing, long heldByLimits,
                        LimitsSnapshot limits) {

    /** The pool's name. */
    public String pool() {
        return snapshot.pool();
    }

    /**
     * One group of the pool.
     *
     * @param snapshot           the policy's figures for the group
     * @param key                its canonical label key ({@code ""} for the unlabeled group)
     * @param demand             its busy slots plus the waiting tasks it could serve
     * @param oldestWaitingSince the oldest wait among the lines it could serve, or {@code null}
     */
    public record GroupState(GroupSnapshot snapshot, String key, long demand, Instant oldestWaitingSince) {}

    /**
     * One requirement class of one tenant with waiting tasks: its tasks that require exactly these labels.
     *
     * @param key                its canonical label key
     * @param tenant             the tenant whose line it is
     * @param waiting            tasks in its line
     * @param headTaskId         the task first in line
     * @param oldestWaitingSince since when the head waits
     * @param workers            ACTIVE workers that satisfy its whole requirement, labels and resources (0: no worker can run it now)
     * @param limits             the concurrency keys and rate limits its tasks name, in words, or {@code null}
     * @param heldByLimit        whether one of them holds its tasks back now
     */
    public record ClassState(String key, String tenant, long waiting, String headTaskId, Instant oldestWaitingSince,
                             int workers, String limits, boolean heldByLimit) {}
}
