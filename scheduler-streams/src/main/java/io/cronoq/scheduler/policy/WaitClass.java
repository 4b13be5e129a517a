package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.limits.Line;
import io.cronoq.scheduler.policy.limits.LineLimits;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.LineKeys;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.events.Preference;
import java.util.List;

/**
 * One tenant's line of one requirement class ({@link Need}): the waiting tasks of a {@link Tenant}
 * with exactly the same {@link Requirement} and the same limits ({@link LineLimits}). Each tenant has lines of its own, so a freed slot can
 * choose between tenants before it chooses inside one. In memory it keeps only their count and
 * the head of their line (the tasks stay in the {@link WaitingQueue}); what the tenants share (the
 * profiles that can serve the requirement, which are free, why it waits) is its {@link Need}'s.
 */
final class WaitClass extends Line {

    final Need need;
    final Requirement requirement;
    final Tenant tenant;
    /** The key of its line in the waiting store ({@link LineKeys}). */
    private final String key;

    long count;
    Place headPlace;
    String headTaskId;
    /** Its tenant's seat in its need, while it is the tenant's line there naming no limit ({@link TenantSeats}). */
    TenantSeats.Seat seat;
    /** Whether it is among its need's open lines ({@link Need#open}). */
    boolean open;
    /**
     * The head that was told its tenant's max holds it, while that is the last thing it was told
     * and it is still the head ({@code null} otherwise): it is not told again on every freed slot.
     */
    String heldTold;
    /**
     * The shortest timeout of the tasks that joined since the line was last empty, in ms: no waiting
     * task's lease is shorter ({@link Long#MAX_VALUE}: none has one; 0: not known, after loading).
     * Backfill passes over a line whose tasks are all too long without reading them.
     */
    long shortestLeaseMs = Long.MAX_VALUE;

    /** The line with this key ({@link LineKeys}: the need's requirement, the tenant, the limits the key names). */
    WaitClass(Need need, Tenant tenant, String key, LineLimits limits) {
        super(limits);
        this.need = need;
        this.requirement = need.requirement;
        this.tenant = tenant;
        this.key = key;
    }

    @Override
    protected void admitted() {
        need.open(this);
    }

    @Override
    protected void heldBack() {
        need.close(this);
    }

    @Override
    protected long waiting() {
        return count;
    }

    /** A task with this timeout (null: none) joined the line. */
    void joined(Long timeoutMs) {
        if (timeoutMs != null && timeoutMs < shortestLeaseMs) {
            shortestLeaseMs = timeoutMs;
        }
    }

    LabelSet labels() {
        return requirement.labelSet();
    }

    /** Its line key: the requirement key, and the tenant when not the default. */
    String key() {
        return key;
    }

    /**
     * Whether it has waiting tasks, its limits admit its head, and a free profile its tenant may take
     * (its max quotas allow it).
     */
    boolean servable() {
        return count > 0 && blockedBy() == null && need.anyFreeFor(tenant);
    }

    /** Whether a free profile its tenant may take lies in a scope where the tenant is below its guarantee. */
    boolean hasDeficitProfile() {
        if (!tenant.belowGuarantee()) {
            return false;
        }
        for (Profile p : need.freeProfiles) {
            if (tenant.deficitFor(p.labels()) != null && tenant.mayTake(p.labels())) {
                return true;
            }
        }
        return false;
    }

    /** The free profile a task of this line with these preferences should go to now ({@link Need#bestFreeProfile}). */
    Profile bestFreeProfile(List<Preference> preferences) {
        return need.bestFreeProfile(preferences, tenant);
    }

    /** {@link #bestFreeProfile} among the free profiles where its tenant is below its guarantee. */
    Profile bestDeficitProfile(List<Preference> preferences) {
        return need.bestDeficitProfile(preferences, tenant);
    }

    @Override
    public String toString() {
        return "WaitClass[" + requirement.key() + " tenant=" + tenant.name() + " count=" + count + "]";
    }
}
