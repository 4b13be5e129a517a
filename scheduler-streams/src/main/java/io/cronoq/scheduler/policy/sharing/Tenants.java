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
 * ({@link #waiting}), and what each attempt holds ({@link #hold}, {@link #free}). Not thread-safe:
 * one pool, one thread.
 */
public final class Tenants {

    static final long DEFAULT_PREEMPTION_GRACE_MS = 30_000;

    private final String pool;
    private final Map<String, Tenant> byName = new HashMap<>();
    private final Tenant defaultTenant;
    private boolean preemption = true;
    private long preemptionGraceMs = DEFAULT_PREEMPTION_GRACE_MS;
    /** Slots of the pool's ACTIVE workers. */
    private int poolSlots;
    /** GPUs of the pool's ACTIVE workers. */
    private int poolGpus;
    /** The tenants with waiting tasks, smallest dominant share first (then by name): where a freed slot looks. */
    private final TreeSet<Tenant> ranked = new TreeSet<>(Tenants::byShare);
    /** The tenants with a guarantee, and those bounded by a max: few, looked at apart. */
    private List<Tenant> guaranteedTenants = List.of();
    private List<Tenant> boundedTenants = List.of();
    /**
     * Tenants bound by a max that freed a slot since placement last looked: their waiting classes may
     * take a slot again, wherever it is free ({@link #takeReleased}).
     */
    private final Noticed<Tenant> released = new Noticed<>();

    /** The tenants of this pool: only {@code default} until a policy is loaded or a task names another. */
    public Tenants(String pool) {
        this.pool = pool;
        this.defaultTenant = get(SharingRules.DEFAULT_TENANT);
    }

    /** The tenant of this name (a task's {@code tenant}; {@code null} is {@code default}), known from now on. */
    public Tenant get(String name) {
        if (name == null) {
            return defaultTenant;
        }
        Tenant t = byName.get(name);
        if (t == null) {
            t = new Tenant(name, byName.size());
            byName.put(name, t);
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

    private static int byShare(Tenant a, Tenant b) {
        int c = Double.compare(a.shareKey, b.shareKey);
        return c != 0 ? c : a.name.compareTo(b.name);
    }

    /** The tenants with waiting tasks, smallest dominant share first. */
    public Collection<Tenant> ranked() {
        return ranked;
    }

    /** The tenants with a guarantee, by name. */
    public List<Tenant> guaranteedTenants() {
        return guaranteedTenants;
    }

    /** The tenants bounded by a max, by name. */
    public List<Tenant> boundedTenants() {
        return boundedTenants;
    }

    /** A tenant's first waiting task ({@code true}) or last ({@code false}): it joins or leaves the ranking. */
    public void waiting(Tenant t, boolean waits) {
        t.waits = waits;
        if (waits) {
            t.shareKey = share(t);
            ranked.add(t);
        } else {
            ranked.remove(t);
        }
    }

    /** The pool's ACTIVE capacity changed: every share does, and the ranking is made again. */
    public void capacity(int slotsDelta, int gpusDelta) {
        poolSlots += slotsDelta;
        poolGpus += gpusDelta;
        if (slotsDelta != 0 || gpusDelta != 0) {
            rerankAll();
        }
    }

    private void rerankAll() {
        List<Tenant> all = new ArrayList<>(ranked);
        ranked.clear();
        for (Tenant t : all) {
            t.shareKey = share(t);
            ranked.add(t);
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
        boolean isRanked = t.waits;
        boolean alone = isRanked && ranked.size() == 1; // a set of one stays in order whatever its key
        if (isRanked && !alone) {
            ranked.remove(t); // by the key it has now, before the key changes
        }
        t.slots += sign;
        t.gpus += sign * gpus;
        if (!t.quotas.isEmpty() && t.countInQuotas(workerLabels, sign)) {
            released.add(t); // it was held by this max, and now may take again
        }
        if (isRanked) {
            t.shareKey = share(t);
            if (!alone) {
                ranked.add(t);
            }
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
            t.weight = p.getWeight();
            setQuotas(t, p.getQuotas());
        }
        refreshFlags();
    }

    /**
     * Applies a (valid) change. New quotas count nothing yet: the caller counts the tenant's running
     * attempts into them ({@link Tenant#countInQuotas}).
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
            t.weight = in.getWeight();
        }
        if (in.getQuotas() != null) {
            setQuotas(t, in.getQuotas());
        }
        refreshFlags();
    }

    private static void setQuotas(Tenant t, List<TenantQuota> quotas) {
        List<Tenant.Quota> list = new ArrayList<>(quotas.size());
        for (TenantQuota q : quotas) {
            list.add(new Tenant.Quota(LabelSet.of(q.getLabels()), q.getGuaranteed(),
                    q.getMax() == null ? Integer.MAX_VALUE : q.getMax()));
        }
        t.quotas = List.copyOf(list);
        t.bounded = list.stream().anyMatch(Tenant.Quota::bounded);
        t.guaranteed = list.stream().anyMatch(q -> q.guaranteed > 0);
        t.belowGuarantee = t.guaranteed; // it holds nothing under the new quotas until counted into them
    }

    private void refreshFlags() {
        guaranteedTenants = byName.values().stream().filter(t -> t.guaranteed).sorted(Tenants::byName).toList();
        boundedTenants = byName.values().stream().filter(t -> t.bounded).sorted(Tenants::byName).toList();
        rerankAll(); // a weight changed
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
