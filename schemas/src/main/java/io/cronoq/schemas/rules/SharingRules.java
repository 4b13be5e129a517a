package io.cronoq.schemas.rules;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rules of a pool's sharing policy (tenants' weights and quotas, the pool's preemption), applied
 * alike by the scheduler, the gateway, the command line and the scheduler's config file: each
 * check names the field that is wrong and says what is allowed.
 */
public final class SharingRules {

    /** The tenant of a task that names none (and whose credential names none). */
    public static final String DEFAULT_TENANT = "default";
    /** The heaviest weight a tenant may have; the lightest is above 0. */
    public static final double MAX_WEIGHT = 1_000;
    /** The most quotas one tenant may have in one pool. */
    public static final int MAX_QUOTAS = 16;

    private SharingRules() {}

    /** The tenant a task counts against: its own, else {@link #DEFAULT_TENANT}. */
    public static String tenantOf(String tenant) {
        return tenant == null ? DEFAULT_TENANT : tenant;
    }

    /** Every rule of a sharing policy change. */
    public static Optional<Violation> check(SharingPolicySet e) {
        Optional<Violation> v = Violation.first(Rules.pool(e.getPool()), Rules.tenant(e.getTenant()),
                Rules.text("setBy", e.getSetBy(), Rules.MAX_SUBMITTER_LENGTH));
        if (v.isPresent()) {
            return v;
        }
        if (e.getTenant() == null) {
            if (e.getWeight() != null || e.getQuotas() != null) {
                return Optional.of(new Violation(e.getWeight() != null ? "weight" : "quotas",
                        "weight and quotas belong to a tenant: name the tenant, or set only the pool's preemption"));
            }
            if (e.getPreemption() == null && e.getPreemptionGraceMs() == null) {
                return Optional.of(new Violation("tenant", "nothing to set: name a tenant with a weight or quotas, "
                        + "or set the pool's preemption or preemptionGraceMs"));
            }
            if (e.getPreemptionGraceMs() != null && e.getPreemptionGraceMs() < 0) {
                return Optional.of(new Violation("preemptionGraceMs", "preemptionGraceMs is " + e.getPreemptionGraceMs()
                        + "; a grace is 0 or more milliseconds"));
            }
            return Optional.empty();
        }
        if (e.getPreemption() != null || e.getPreemptionGraceMs() != null) {
            return Optional.of(new Violation(e.getPreemption() != null ? "preemption" : "preemptionGraceMs",
                    "preemption is the pool's setting, not a tenant's: set it without a tenant"));
        }
        if (e.getWeight() == null && e.getQuotas() == null) {
            return Optional.of(new Violation("weight", "nothing to set for tenant " + e.getTenant()
                    + ": give a weight, quotas, or both"));
        }
        if (e.getWeight() != null) {
            v = weight(e.getWeight());
            if (v.isPresent()) {
                return v;
            }
        }
        return e.getQuotas() == null ? Optional.empty() : quotas(e.getQuotas());
    }

    /** A tenant's weight: above 0, at most {@link #MAX_WEIGHT}. */
    public static Optional<Violation> weight(double weight) {
        if (weight > 0 && weight <= MAX_WEIGHT) {
            return Optional.empty();
        }
        return Optional.of(new Violation("weight", "weight is " + weight + "; a tenant's weight is above 0 and at most "
                + (int) MAX_WEIGHT + " (1 is the default)"));
    }

    /** A tenant's quotas: valid scopes, each at most once; guaranteed 0 or more, max at least guaranteed. */
    public static Optional<Violation> quotas(List<TenantQuota> quotas) {
        if (quotas.size() > MAX_QUOTAS) {
            return Optional.of(new Violation("quotas", quotas.size() + " quotas; a tenant has at most " + MAX_QUOTAS
                    + " per pool"));
        }
        Set<Map<String, String>> scopes = new HashSet<>();
        for (int i = 0; i < quotas.size(); i++) {
            String field = "quotas[" + i + "]";
            TenantQuota q = quotas.get(i);
            Optional<Violation> v = Rules.labels(q.getLabels());
            if (v.isPresent()) {
                return Optional.of(new Violation(field + "." + v.get().field(), v.get().message()));
            }
            if (!scopes.add(new TreeMap<>(q.getLabels()))) {
                return Optional.of(new Violation(field + ".labels", field + " repeats the scope " + scope(q.getLabels())
                        + "; give each scope one quota"));
            }
            if (q.getGuaranteed() < 0) {
                return Optional.of(new Violation(field + ".guaranteed", field + ".guaranteed is " + q.getGuaranteed()
                        + "; a guarantee is 0 or more slots"));
            }
            if (q.getMax() != null && q.getMax() < 0) {
                return Optional.of(new Violation(field + ".max", field + ".max is " + q.getMax()
                        + "; a max is 0 or more slots (leave it out for no bound)"));
            }
            if (q.getMax() != null && q.getGuaranteed() > q.getMax()) {
                return Optional.of(new Violation(field + ".guaranteed", field + ".guaranteed is " + q.getGuaranteed()
                        + ", above its max " + q.getMax() + "; a tenant cannot be guaranteed more than it may hold"));
            }
        }
        return Optional.empty();
    }

    /** A quota's scope in words: {@code gpu=a100} or {@code the pool}. */
    public static String scope(Map<String, String> labels) {
        if (labels == null || labels.isEmpty()) {
            return "the pool";
        }
        StringBuilder b = new StringBuilder();
        new TreeMap<>(labels).forEach((k, v) -> b.append(b.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return b.toString();
    }
}
