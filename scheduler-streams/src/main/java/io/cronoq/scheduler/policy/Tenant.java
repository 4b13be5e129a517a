package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One team sharing a pool: its weight and quotas (the policy an admin set, weight 1 and no quota
 * by default), the slots and GPUs its attempts hold now, pool-wide and per quota scope, and its
 * requirement classes that have waiting tasks. Counts change only through {@link Tenants}.
 */
final class Tenant {

    /** A tenant's slots within one scope: the workers whose labels include {@link #scope}. */
    static final class Quota {
        final LabelSet scope;
        final int guaranteed;
        /** {@code Integer.MAX_VALUE} when unbounded. */
        final int max;
        /** Slots of the scope its attempts hold. */
        int inUse;

        Quota(LabelSet scope, int guaranteed, int max) {
            this.scope = scope;
            this.guaranteed = guaranteed;
            this.max = max;
        }

        boolean bounded() {
            return max != Integer.MAX_VALUE;
        }

        boolean atMax() {
            return inUse >= max;
        }

        boolean belowGuarantee() {
            return inUse < guaranteed;
        }

        /** {@code 16/16 slots of gpu=a100}. */
        String use(int of) {
            return inUse + "/" + of + " slots of " + (scope.size() == 0 ? "the pool" : scope.key());
        }
    }

    final String name;
    /** Its number in the pool, from 0 in the order tenants became known: where a class keeps its line ({@link Need}). */
    final int index;
    double weight = 1.0;
    /** Never null; empty without quotas. */
    List<Quota> quotas = List.of();
    /** Whether any quota bounds it (a max), so placement checks only such tenants. */
    boolean bounded;
    /** Whether any quota guarantees it slots. */
    boolean guaranteed;
    /** Whether it holds less than a guarantee somewhere now (kept by {@link Tenants}). */
    boolean belowGuarantee;
    /** Slots its attempts hold in the pool (on ACTIVE and DRAINING workers). */
    int slots;
    /** GPUs its running attempts requested. */
    int gpus;
    /**
     * Its dominant share, kept current while it has waiting tasks: the key by which {@link Tenants}
     * ranks it (changed only by {@code Tenants}, out of the ranking).
     */
    double shareKey;
    /** Its requirement classes with waiting tasks. */
    final LinkedHashSet<WaitClass> waiting = new LinkedHashSet<>();

    Tenant(String name, int index) {
        this.name = name;
        this.index = index;
    }

    /** Whether it holds a slot or has a task waiting: the tenants a fair share is divided among. */
    boolean hasDemand() {
        return slots > 0 || !waiting.isEmpty();
    }

    /** Whether an attempt may go to a worker with these labels without passing any of its max quotas. */
    boolean mayTake(LabelSet workerLabels) {
        return !bounded || maxFor(workerLabels) == null;
    }

    /** The max quota that keeps it off a worker with these labels, or {@code null}. */
    Quota maxFor(LabelSet workerLabels) {
        for (Quota q : quotas) {
            if (q.bounded() && q.atMax() && workerLabels.includes(q.scope)) {
                return q;
            }
        }
        return null;
    }

    /** The quota whose guarantee it is below and that covers a worker with these labels, or {@code null}. */
    Quota deficitFor(LabelSet workerLabels) {
        if (!belowGuarantee) {
            return null;
        }
        for (Quota q : quotas) {
            if (q.belowGuarantee() && workerLabels.includes(q.scope)) {
                return q;
            }
        }
        return null;
    }

    /**
     * Counts a slot held ({@code sign} +1) or freed (-1) on a worker with these labels into every
     * quota whose scope covers it; returns whether a freed slot was one its max held it to.
     */
    boolean countInQuotas(LabelSet workerLabels, int sign) {
        boolean releasedFromMax = false;
        boolean below = false;
        for (Quota q : quotas) {
            if (workerLabels.includes(q.scope)) {
                releasedFromMax |= sign < 0 && q.atMax();
                q.inUse += sign;
            }
            below |= q.belowGuarantee();
        }
        belowGuarantee = below;
        return releasedFromMax;
    }

    /** Whether it holds more of a worker's scope than it is guaranteed there: what it holds there is borrowed. */
    boolean borrowsOn(LabelSet workerLabels) {
        Quota narrowest = null;
        for (Quota q : quotas) {
            if (workerLabels.includes(q.scope) && (narrowest == null || q.scope.size() > narrowest.scope.size())) {
                narrowest = q;
            }
        }
        return narrowest == null || narrowest.inUse > narrowest.guaranteed;
    }

    @Override
    public String toString() {
        return "Tenant[" + name + " weight=" + weight + " slots=" + slots + "]";
    }
}
