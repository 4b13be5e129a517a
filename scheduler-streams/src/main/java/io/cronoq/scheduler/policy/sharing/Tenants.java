package io.cronoq.scheduler.policy.sharing;

import io.cronoq.scheduler.policy.common.Noticed;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TenantPolicy;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How one pool is shared: its tenants ({@link Tenant}: weight, quotas, what they hold), the pool's
 * preemption settings, and the pool's capacity in the two dimensions a share is measured in (slots
 * of ACTIVE workers, and their GPUs). What a tenant holds is counted from the workers' running
 * attempts ({@code AttemptRef} names the tenant and the GPUs it requested), so it is derived from the
 * worker records alone and needs no state of its own; the policy is kept in the pool's
 * {@code SharingRecord}.
 *
 * <p>A tenant's <em>dominant share</em> is the larger of its part of the pool's slots and its part
 * of the pool's GPUs, divided by its weight; a freed slot goes to the tenant with the smallest (see
 * placement's settle), which is weighted max-min fairness over slots and GPUs (dominant resource
 * fairness). The one entry placement calls into this package; it knows nothing of lines or
 * workers: placement tells it when a tenant's first task starts waiting and its last stops
 * ({@link #waiting}), and what each attempt holds ({@link #hold}, {@link #free}); it tells placement,
 * through a {@link Watcher}, when the order of the waiting tenants or a tenant's standing (below a
 * guarantee, held to a max) changes.
 *
 * <p>A tenant that holds nothing, waits for nothing and has no policy is forgotten after the input
 * that left it so ({@link #forgetIdle}): many short-lived tenants cost nothing once gone, and one
 * that comes back is new. Not thread-safe: one pool, one thread.
 */
public final class Tenants {

    /** What placement keeps beside its lines about the waiting tenants, told when it changes. */
    public interface Watcher {
        /**
         * A waiting tenant's dominant share fell (it freed a slot, or its weight rose): it moves ahead
         * at once. A share that rose needs no word: an order that kept the older, smaller value still
         * holds it as a lower bound, and catches up when it looks.
         */
        void shareFell(Tenant t);

        /** A tenant went below a guarantee or back, or reached a max or left it. */
        void standingChanged(Tenant t);
    }

    private static final Watcher NO_WATCHER = new Watcher() {
        @Override
        public void shareFell(Tenant t) {}

        @Override
        public void standingChanged(Tenant t) {}
    };

    static final long DEFAULT_PREEMPTION_GRACE_MS = 30_000;

    private final String pool;
    private final Map<String, Tenant> byName = new HashMap<>();
    private final Tenant defaultTenant;
    private Watcher watcher = NO_WATCHER;
    private boolean preemption = true;
    private long preemptionGraceMs = DEFAULT_PREEMPTION_GRACE_MS;
    /** Slots of the pool's ACTIVE workers. */
    private int poolSlots;
    /** GPUs of the pool's ACTIVE workers. */
    private int poolGpus;
    /** Tenants with waiting tasks: while there is one, no order among them is kept. */
    private int waitingTenants;
    /**
     * Counts the times every share changed at once (the pool's capacity changed): an order kept by
     * share under an older count must be made again ({@link #shareEpoch}).
     */
    private long shareEpoch;
    /** The tenants with a guarantee, by name: only while there is one does placement look for tenants below one. */
    private final TreeSet<Tenant> guaranteedTenants = new TreeSet<>(Tenants::byName);
    /** The tenants below a guarantee now, by name: the ones preemption looks at. */
    private final TreeSet<Tenant> belowGuarantee = new TreeSet<>(Tenants::byName);
    /**
     * Tenants bound by a max that freed a slot since placement last looked: their waiting classes may
     * take a slot again, wherever it is free ({@link #takeReleased}).
     */
    private final Noticed<Tenant> released = new Noticed<>();
    /** Tenants that may have been left idle by the current input: {@link #forgetIdle} looks at them. */
    private final Noticed<Tenant> maybeIdle = new Noticed<>();

    /** The tenants of this pool: only {@code default} until a policy is loaded or a task names another. */
    public Tenants(String pool) {
        this.pool = pool;
        this.defaultTenant = get(SharingRules.DEFAULT_TENANT);
    }

    /** Placement's watcher (one per pool). */
    public void watch(Watcher w) {
        this.watcher = w;
    }

    /** The tenant of this name (a task's {@code tenant}; {@code null} is {@code default}), known from now on. */
    public Tenant get(String name) {
        if (name == null) {
            return defaultTenant;
        }
        Tenant t = byName.get(name);
        if (t == null) {
            t = new Tenant(name);
            byName.put(name, t);
            maybeIdle.add(t); // known for an input that may leave it nothing
        }
        return t;
    }

    /** Every tenant known, in no order. */
    public Collection<Tenant> all() {
        return byName.values();
    }

    /** Whether preemption is on in the pool. */
    public boolean preemption() {
        return preemption;
    }

    /** How long a tenant below its guarantee waits before it takes a slot back. */
    public long preemptionGraceMs() {
        return preemptionGraceMs;
    }

    /** Slots of the pool's ACTIVE workers. */
    public int poolSlots() {
        return poolSlots;
    }

    /** GPUs of the pool's ACTIVE workers. */
    public int poolGpus() {
        return poolGpus;
    }

    /** Whether any tenant has a guarantee: only then do placement and ticks look for tenants below one. */
    public boolean anyGuarantee() {
        return !guaranteedTenants.isEmpty();
    }

    /**
     * The order in which a freed slot looks at waiting tenants: the smaller dominant share first,
     * equal shares by name. Read while both wait (their shares are kept current then).
     */
    public static int byShare(Tenant a, Tenant b) {
        if (a == b) {
            return 0;
        }
        int c = Double.compare(a.shareKey, b.shareKey);
        return c != 0 ? c : a.name.compareTo(b.name);
    }

    /**
     * Changes each time every share changed at once (the pool's capacity changed), or a second tenant
     * started waiting (while one waited, its falls were not told): an order by share kept under
     * another value is stale.
     */
    public long shareEpoch() {
        return shareEpoch;
    }

    /** The tenants below a guarantee now, by name. */
    public Collection<Tenant> belowGuarantee() {
        return belowGuarantee;
    }

    /** A tenant's first waiting task ({@code true}) or last ({@code false}). */
    public void waiting(Tenant t, boolean waits) {
        if (t.waits == waits) {
            return;
        }
        t.waits = waits;
        if (waits) {
            t.shareKey = share(t);
            if (++waitingTenants == 2) {
                shareEpoch++; // while one tenant waited, no order was kept: it is made afresh
            }
        } else {
            waitingTenants--;
            maybeIdle.add(t);
        }
    }

    /** The pool's ACTIVE capacity changed: every share does, and every order by share is made again. */
    public void capacity(int slotsDelta, int gpusDelta) {
        poolSlots += slotsDelta;
        poolGpus += gpusDelta;
        if (slotsDelta != 0 || gpusDelta != 0) {
            for (Tenant t : byName.values()) {
                if (t.waits) {
                    t.shareKey = share(t);
                }
            }
            shareEpoch++;
        }
    }

    /** The tenant's dominant share: its larger part of the pool's slots or GPUs, over its weight. */
    public double share(Tenant t) {
        double slots = poolSlots == 0 ? t.slots : (double) t.slots / poolSlots;
        double gpus = poolGpus == 0 ? 0 : (double) t.gpus / poolGpus;
        return Math.max(slots, gpus) / t.weight;
    }

    // ---- what the tenants hold: the workers' running attempts --------------------------------

    /** An attempt holds a slot on a worker with these labels. */
    public void hold(AttemptRef ref, LabelSet workerLabels) {
        count(get(ref.getTenant()), ref.getGpus(), workerLabels, +1);
    }

    /** An attempt freed its slot. */
    public void free(AttemptRef ref, LabelSet workerLabels) {
        count(get(ref.getTenant()), ref.getGpus(), workerLabels, -1);
    }

    private void count(Tenant t, int gpus, LabelSet workerLabels, int sign) {
        t.slots += sign;
        t.gpus += sign * gpus;
        if (!t.quotas.isEmpty()) {
            countInQuotas(t, workerLabels, sign);
        }
        if (t.waits) {
            rekey(t);
        } else if (t.slots == 0) {
            maybeIdle.add(t);
        }
    }

    /** A waiting tenant's share is worked out again; the watcher hears when it fell. */
    private void rekey(Tenant t) {
        double before = t.shareKey;
        t.shareKey = share(t);
        if (t.shareKey < before && waitingTenants > 1) {
            watcher.shareFell(t);
        }
    }

    /**
     * Counts a running attempt of the tenant, on a worker with these labels, into its quotas alone
     * (new quotas count what it already holds).
     */
    public void countIntoQuotas(Tenant t, LabelSet workerLabels) {
        countInQuotas(t, workerLabels, +1);
    }

    private void countInQuotas(Tenant t, LabelSet workerLabels, int sign) {
        boolean below = t.belowGuarantee;
        boolean capped = t.atMax > 0;
        if (t.countInQuotas(workerLabels, sign)) {
            released.add(t); // it was held by this max, and now may take again
        }
        standing(t, below, capped);
    }

    /** Tells the watcher, and keeps {@link #belowGuarantee}, when the tenant's standing changed. */
    private void standing(Tenant t, boolean wasBelow, boolean wasCapped) {
        if (t.belowGuarantee != wasBelow) {
            if (t.belowGuarantee) {
                belowGuarantee.add(t);
            } else {
                belowGuarantee.remove(t);
            }
        }
        if (t.belowGuarantee != wasBelow || (t.atMax > 0) != wasCapped) {
            watcher.standingChanged(t);
        }
    }

    /** Whether a tenant bound by a max freed a slot since the last {@link #takeReleased}. */
    public boolean anyReleased() {
        return released.any();
    }

    /** The tenants bound by a max that freed a slot since the last call. */
    public List<Tenant> takeReleased() {
        return released.take();
    }

    /**
     * Forgets the tenants the last input left holding nothing, waiting for nothing and without a
     * policy (never {@code default}); called between inputs, so no decision holds one.
     */
    public void forgetIdle() {
        if (!maybeIdle.any()) {
            return;
        }
        for (Tenant t : maybeIdle.take()) {
            if (t != defaultTenant && !t.waits && t.slots == 0 && t.weight == 1.0 && t.quotas.isEmpty()
                    && byName.get(t.name) == t) {
                byName.remove(t.name);
                t.forgotten = true;
            }
        }
    }
    // ---- words --------------------------------------------------------------------------------

    /**
     * Why a freed slot went to {@code chosen} rather than to {@code passedOver}, whose head had
     * waited longer, for the journal's cause of the assignment: {@code tier} 0 (urgent: the time
     * rules explain it, {@code null}), 1 (below its guarantee on a worker with these labels), 2 (its
     * share).
     */
    public String whyChosen(Tenant chosen, int tier, LabelSet workerLabels, Tenant passedOver) {
        if (tier == 0) {
            return null; // the time rules explain it
        }
        if (tier == 1) {
            Tenant.Quota q = chosen.deficitFor(workerLabels);
            return q == null ? null : "tenant " + chosen.name + " is below its guarantee (" + q.use(q.guaranteed)
                    + ") and goes before tenant " + passedOver.name;
        }
        return "tenant " + chosen.name + " is furthest below its fair share (share " + rounded(share(chosen))
                + " at weight " + chosen.weightText() + "; tenant " + passedOver.name + ": "
                + rounded(share(passedOver)) + " at weight " + passedOver.weightText() + ")";
    }

    /** A share to three decimals, as the journal writes it (no formatter on the placement path). */
    private static String rounded(double share) {
        long thousandths = Math.round(share * 1000);
        String digits = Long.toString(1000 + thousandths % 1000);
        return (thousandths / 1000) + "." + digits.substring(1);
    }

    // ---- the policy ---------------------------------------------------------------------------

    /** Loads the pool's stored policy (none: weights 1, no quotas, preemption on). */
    public void load(SharingRecord record) {
        if (record == null) {
            return;
        }
        preemption = record.getPreemption();
        preemptionGraceMs = record.getPreemptionGraceMs();
        for (TenantPolicy p : record.getTenants()) {
            Tenant t = get(p.getTenant());
            weigh(t, p.getWeight());
            setQuotas(t, p.getQuotas());
        }
    }

    /**
     * Applies a (valid) change. New quotas count nothing yet: the caller counts the tenant's running
     * attempts into them ({@link #countIntoQuotas}).
     */
    public void apply(SharingPolicySet in) {
        if (in.getTenant() == null) {
            if (in.getPreemption() != null) {
                preemption = in.getPreemption();
            }
            if (in.getPreemptionGraceMs() != null) {
                preemptionGraceMs = in.getPreemptionGraceMs();
            }
            return;
        }
        Tenant t = get(in.getTenant());
        if (in.getWeight() != null) {
            weigh(t, in.getWeight());
        }
        if (in.getQuotas() != null) {
            setQuotas(t, in.getQuotas());
        }
    }

    private void weigh(Tenant t, double weight) {
        if (t.weight == weight) {
            return;
        }
        t.weight = weight;
        if (t.waits) {
            rekey(t);
        }
        maybeIdle.add(t); // back to weight 1, it may have no policy left
    }

    private void setQuotas(Tenant t, List<TenantQuota> quotas) {
        boolean below = t.belowGuarantee;
        boolean capped = t.atMax > 0;
        List<Tenant.Quota> list = new ArrayList<>(quotas.size());
        for (TenantQuota q : quotas) {
            list.add(new Tenant.Quota(LabelSet.of(q.getLabels()), q.getGuaranteed(),
                    q.getMax() == null ? Integer.MAX_VALUE : q.getMax()));
        }
        t.quotas = List.copyOf(list);
        t.bounded = list.stream().anyMatch(Tenant.Quota::bounded);
        t.guaranteed = list.stream().anyMatch(q -> q.guaranteed > 0);
        t.belowGuarantee = t.guaranteed; // it holds nothing under the new quotas until counted into them
        t.atMax = (int) list.stream().filter(q -> q.bounded() && q.atMax()).count(); // a max of 0 holds at once
        if (t.guaranteed) {
            guaranteedTenants.add(t);
        } else {
            guaranteedTenants.remove(t);
        }
        standing(t, below, capped);
        maybeIdle.add(t); // without quotas, it may have no policy left
    }

    private static int byName(Tenant a, Tenant b) {
        return a.name.compareTo(b.name);
    }

    /** The policy as stored: the tenants with a weight other than 1 or with quotas, sorted by name. */
    public SharingRecord record() {
        List<TenantPolicy> tenants = new ArrayList<>();
        for (Tenant t : new TreeMap<>(byName).values()) {
            if (t.weight != 1.0 || !t.quotas.isEmpty()) {
                List<TenantQuota> quotas = new ArrayList<>(t.quotas.size());
                for (Tenant.Quota q : t.quotas) {
                    quotas.add(new TenantQuota(new HashMap<>(q.scope.asMap()), q.guaranteed,
                            q.bounded() ? q.max : null));
                }
                tenants.add(new TenantPolicy(t.name, t.weight, quotas));
            }
        }
        return new SharingRecord(pool, tenants, preemption, preemptionGraceMs);
    }
}
