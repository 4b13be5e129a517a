package io.cronoq.scheduler.policy.sharing;

import io.cronoq.scheduler.policy.match.LabelSet;
import java.util.List;

/**
 * One team sharing a pool: its weight and quotas (the policy an admin set, weight 1 and no quota
 * by default), the slots and GPUs its attempts hold now, pool-wide and per quota scope, and whether
 * it has waiting tasks. Counts change only through {@link Tenants}; placement reads them through
 * final accessors on this final class, which cost what a field read costs once compiled.
 */
public final class Tenant {

    /** A tenant's slots within one scope: the workers whose labels include {@link #scope}. */
    public static final class Quota {
        /** The workers it counts: those whose labels include these. */
        public final LabelSet scope;
        /** Slots of the scope the tenant is guaranteed (0: none). */
        public final int guaranteed;
        /** Slots of the scope the tenant may hold at most; {@code Integer.MAX_VALUE} when unbounded. */
        public final int max;
        /** Slots of the scope its attempts hold (changed only by {@link Tenant#countInQuotas}). */
        int inUse;

        Quota(LabelSet scope, int guaranteed, int max) {
            this.scope = scope;
            this.guaranteed = guaranteed;
            this.max = max;
        }

        /** Slots of the scope its attempts hold now. */
        public int inUse() {
            return inUse;
        }

        /** Whether it bounds the tenant (a max). */
        public boolean bounded() {
            return max != Integer.MAX_VALUE;
        }

        boolean atMax() {
            return inUse >= max;
        }

        /** Whether the tenant holds less of the scope than it is guaranteed. */
        public boolean belowGuarantee() {
            return inUse < guaranteed;
        }

        /** {@code 16/16 slots of gpu=a100}. */
        public String use(int of) {
            return inUse + "/" + of + " slots of " + (scope.size() == 0 ? "the pool" : scope.key());
        }
    }

    final String name;
    /** Whether its pool forgot it (idle, no policy): a line that still names it is stale. */
    boolean forgotten;
    double weight = 1.0;
    /** Never null; empty without quotas. */
    List<Quota> quotas = List.of();
    /** Whether any quota bounds it (a max), so placement checks only such tenants. */
    boolean bounded;
    /** Whether any quota guarantees it slots. */
    boolean guaranteed;
    /** Whether it holds less than a guarantee somewhere now (kept by {@link Tenants}). */
    boolean belowGuarantee;
    /** How many of its max quotas it holds all of now: while none, no worker is closed to it. */
    int atMax;
    /** Slots its attempts hold in the pool (on ACTIVE and DRAINING workers). */
    int slots;
    /** GPUs its running attempts requested. */
    int gpus;
    /**
     * Its dominant share, kept current while it has waiting tasks: the key by which a freed slot
     * orders the waiting tenants ({@link Tenants#byShare}); changed only by {@code Tenants}.
     */
    double shareKey;
    /** Whether it has waiting tasks (told by placement, {@link Tenants#waiting}). */
    boolean waits;

    Tenant(String name) {
        this.name = name;
    }

    /** Its name (the tasks' {@code tenant}; {@code default} for none). */
    public String name() {
        return name;
    }

    /**
     * Whether its pool forgot it (it held nothing, waited for nothing and had no policy): its name
     * now stands for a new tenant, and what still refers to this one is stale.
     */
    public boolean forgotten() {
        return forgotten;
    }

    /** Its weight (1 by default). */
    public double weight() {
        return weight;
    }

    /** Its quotas; empty without. */
    public List<Quota> quotas() {
        return quotas;
    }

    /** Whether any quota bounds it (a max), so placement checks only such tenants. */
    public boolean bounded() {
        return bounded;
    }

    /** Whether it holds less than a guarantee somewhere now. */
    public boolean belowGuarantee() {
        return belowGuarantee;
    }

    /** Slots its attempts hold in the pool (on ACTIVE and DRAINING workers). */
    public int slots() {
        return slots;
    }

    /** GPUs its running attempts requested. */
    public int gpus() {
        return gpus;
    }

    /** Its dominant share, as kept while it has waiting tasks ({@link Tenants#byShare}). */
    public double rankedShare() {
        return shareKey;
    }

    /** Whether it holds a slot or has a task waiting: the tenants a fair share is divided among. */
    public boolean hasDemand() {
        return slots > 0 || waits;
    }

    /** Whether an attempt may go to a worker with these labels without passing any of its max quotas. */
    public boolean mayTake(LabelSet workerLabels) {
        return atMax == 0 || maxFor(workerLabels) == null;
    }

    /** Whether it holds all of one of its max quotas now: only then may a worker be closed to it. */
    public boolean atAnyMax() {
        return atMax > 0;
    }

    /** The max quota that keeps it off a worker with these labels, or {@code null}. */
    public Quota maxFor(LabelSet workerLabels) {
        if (atMax == 0) {
            return null;
        }
        for (Quota q : quotas) {
            if (q.bounded() && q.atMax() && workerLabels.includes(q.scope)) {
                return q;
            }
        }
        return null;
    }

    /** Its one max quota it holds all of, when exactly one; else {@code null}. */
    public Quota soleMax() {
        if (atMax != 1) {
            return null;
        }
        for (Quota q : quotas) {
            if (q.bounded() && q.atMax()) {
                return q;
            }
        }
        return null;
    }

    /** The quota whose guarantee it is below and that covers a worker with these labels, or {@code null}. */
    public Quota deficitFor(LabelSet workerLabels) {
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
    public boolean countInQuotas(LabelSet workerLabels, int sign) {
        boolean releasedFromMax = false;
        boolean below = false;
        int full = 0;
        for (Quota q : quotas) {
            if (workerLabels.includes(q.scope)) {
                releasedFromMax |= sign < 0 && q.atMax();
                q.inUse += sign;
            }
            below |= q.belowGuarantee();
            full += q.bounded() && q.atMax() ? 1 : 0;
        }
        belowGuarantee = below;
        atMax = full;
        return releasedFromMax;
    }

    /** Whether it holds more of a worker's scope than it is guaranteed there: what it holds there is borrowed. */
    public boolean borrowsOn(LabelSet workerLabels) {
        Quota narrowest = null;
        for (Quota q : quotas) {
            if (workerLabels.includes(q.scope) && (narrowest == null || q.scope.size() > narrowest.scope.size())) {
                narrowest = q;
            }
        }
        return narrowest == null || narrowest.inUse > narrowest.guaranteed;
    }

    /**
     * What a line passed over for this tenant, below its guarantee on a worker with these labels, is
     * told before the slot is taken: {@code slot held for tenant prod (below its guarantee: 3/8 slots
     * of gpu=a100)}; {@code null} when it is not below one there.
     */
    public String heldFor(LabelSet workerLabels) {
        Quota q = deficitFor(workerLabels);
        return q == null ? null : "slot held for tenant " + name + " (below its guarantee: " + q.use(q.guaranteed) + ")";
    }

    /** Its weight as the journal writes it: {@code 2}, {@code 1.5}. */
    public String weightText() {
        return weight == Math.rint(weight) ? Long.toString((long) weight) : Double.toString(weight);
    }

    @Override
    public String toString() {
        return "Tenant[" + name + " weight=" + weight + " slots=" + slots + "]";
    }
}
