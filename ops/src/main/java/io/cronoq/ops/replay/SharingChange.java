package io.cronoq.ops.replay;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.ops.sharing.SharingFlags;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A what-if change to how the pools are shared: tenants' weights and quotas, and the pools'
 * preemption. The simulation applies it to every pool as {@code SharingPolicySet} inputs before the
 * pool's first entry, and again right after each recorded change of the same tenant (or of the
 * pool's preemption), so it holds throughout while what the recorded change set besides stays as
 * recorded. Parsed from {@code --weight TENANT=W}, {@code --quota TENANT:SCOPE:guaranteed=N[:max=M]}
 * (repeatable; a tenant's quotas replace its recorded ones) and {@code --preemption on|off}.
 *
 * @param weights    each tenant's weight, by tenant
 * @param quotas     each tenant's quotas, by tenant
 * @param texts      the {@code --quota} values each tenant's quotas were read from, in the same order
 * @param preemption the pools' preemption, or null to keep the recorded one
 */
record SharingChange(Map<String, Double> weights, Map<String, List<TenantQuota>> quotas,
                     Map<String, List<String>> texts, Boolean preemption) {

    /** Who set the what-if's policy, as the simulated journal says it. */
    static final String SET_BY = "cronoq simulate";

    /** {@code --weight TENANT=W}. */
    record Weight(String tenant, double weight) {

        static final String FORM = "TENANT=W, e.g. research=3";

        static Weight parse(String text) {
            int eq = text.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + text + "' is not " + FORM);
            }
            String tenant = checkedTenant(text.substring(0, eq).strip(), text);
            double weight;
            try {
                weight = Double.parseDouble(text.substring(eq + 1).strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': '" + text.substring(eq + 1) + "' is not a number; "
                        + "write " + FORM);
            }
            SharingRules.weight(weight).ifPresent(v -> {
                throw new IllegalArgumentException("'" + text + "': " + v.message());
            });
            return new Weight(tenant, weight);
        }

        /** A weight as people write it: {@code 3}, {@code 0.5}. */
        static String format(double weight) {
            return weight == Math.rint(weight) ? Long.toString((long) weight) : Double.toString(weight);
        }
    }

    /** {@code --quota TENANT:SCOPE:guaranteed=N[:max=M]}, with the text it was read from. */
    record Quota(String tenant, TenantQuota quota, String text) {

        static final String FORM = "TENANT:SCOPE:guaranteed=N[:max=M], e.g. research:gpu=a100:guaranteed=4:max=16 "
                + "(SCOPE is name=value[,name=value], or pool for the whole pool)";

        static Quota parse(String text) {
            int colon = text.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + text + "' is not " + FORM);
            }
            String tenant = checkedTenant(text.substring(0, colon).strip(), text);
            try {
                return new Quota(tenant, SharingFlags.quota(text.substring(colon + 1)), text);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tenant " + tenant + ": " + e.getMessage(), e);
            }
        }
    }

    /** No change to the sharing policy. */
    static SharingChange none() {
        return new SharingChange(Map.of(), Map.of(), Map.of(), null);
    }

    /**
     * The change these flags describe.
     *
     * @throws IllegalArgumentException naming the flag when a tenant's weight is given twice or its
     *                                  quotas break a rule together (one scope twice, too many)
     */
    static SharingChange of(List<Weight> weights, List<Quota> quotas, Boolean preemption) {
        Map<String, Double> byTenant = new TreeMap<>();
        for (Weight w : weights) {
            if (byTenant.put(w.tenant(), w.weight()) != null) {
                throw new IllegalArgumentException("--weight: tenant " + w.tenant() + " is given twice; give one "
                        + "weight per tenant");
            }
        }
        Map<String, List<TenantQuota>> quotasOf = new TreeMap<>();
        Map<String, List<String>> textsOf = new TreeMap<>();
        for (Quota q : quotas) {
            quotasOf.computeIfAbsent(q.tenant(), t -> new ArrayList<>()).add(q.quota());
            textsOf.computeIfAbsent(q.tenant(), t -> new ArrayList<>()).add(q.text());
        }
        quotasOf.forEach((tenant, list) -> SharingRules.quotas(list).ifPresent(v -> {
            throw SharingFlags.refusal(v, Map.of(), "--quota", textsOf.get(tenant));
        }));
        return new SharingChange(byTenant, copy(quotasOf), copy(textsOf), preemption);
    }

    private static <T> Map<String, List<T>> copy(Map<String, List<T>> lists) {
        Map<String, List<T>> copy = new TreeMap<>();
        lists.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        return copy;
    }

    boolean isNone() {
        return weights.isEmpty() && quotas.isEmpty() && preemption == null;
    }

    /** The tenants the change names, sorted. */
    Set<String> tenants() {
        Set<String> tenants = new TreeSet<>(weights.keySet());
        tenants.addAll(quotas.keySet());
        return tenants;
    }

    /** The changes that put the what-if in force in {@code pool} at its start: the pool's preemption, then each tenant's. */
    List<SharingPolicySet> atStart(String pool, Instant at) {
        List<SharingPolicySet> changes = new ArrayList<>();
        forPool(pool, at).ifPresent(changes::add);
        for (String tenant : tenants()) {
            forTenant(pool, tenant, at).ifPresent(changes::add);
        }
        return changes;
    }

    /** The change that puts the what-if back in force right after a recorded change of the same tenant or pool, if any. */
    Optional<SharingPolicySet> after(SharingPolicySet recorded, Instant at) {
        return recorded.getTenant() == null ? forPool(recorded.getPool(), at)
                : forTenant(recorded.getPool(), recorded.getTenant(), at);
    }

    private Optional<SharingPolicySet> forPool(String pool, Instant at) {
        return preemption == null ? Optional.empty()
                : Optional.of(new SharingPolicySet(pool, null, null, null, preemption, null, SET_BY, at));
    }

    private Optional<SharingPolicySet> forTenant(String pool, String tenant, Instant at) {
        Double weight = weights.get(tenant);
        List<TenantQuota> list = quotas.get(tenant);
        if (weight == null && list == null) {
            return Optional.empty();
        }
        List<TenantQuota> fresh = null;
        if (list != null) {
            fresh = new ArrayList<>();
            for (TenantQuota q : list) {
                fresh.add(new TenantQuota(new HashMap<>(q.getLabels()), q.getGuaranteed(), q.getMax()));
            }
        }
        return Optional.of(new SharingPolicySet(pool, tenant, weight, fresh, null, null, SET_BY, at));
    }

    /** {@code tenant research: weight 3, quotas gpu=a100 4/16; preemption off}, or empty for no change. */
    String describe() {
        List<String> parts = new ArrayList<>();
        for (String tenant : tenants()) {
            List<String> what = new ArrayList<>();
            if (weights.containsKey(tenant)) {
                what.add("weight " + Weight.format(weights.get(tenant)));
            }
            if (quotas.containsKey(tenant)) {
                List<String> list = new ArrayList<>();
                quotas.get(tenant).forEach(q -> list.add(SharingFlags.describe(q)));
                what.add("quotas " + String.join(", ", list));
            }
            parts.add("tenant " + tenant + " " + String.join(", ", what));
        }
        if (preemption != null) {
            parts.add("preemption " + (preemption ? "on" : "off"));
        }
        return String.join("; ", parts);
    }

    private static String checkedTenant(String tenant, String text) {
        Rules.tenant(tenant).ifPresent(v -> {
            throw new IllegalArgumentException("'" + text + "': " + v.message());
        });
        return tenant;
    }

    /** Picocli converter of {@code --weight}: a bad value is a usage error naming the flag. */
    static final class WeightConverter extends Converters.Parsing<Weight> {
        WeightConverter() { super(Weight::parse); }
    }

    /** Picocli converter of {@code --quota}: a bad value is a usage error naming the flag. */
    static final class QuotaConverter extends Converters.Parsing<Quota> {
        QuotaConverter() { super(Quota::parse); }
    }

    /** Picocli converter of {@code --preemption on|off}. */
    static final class PreemptionConverter implements ITypeConverter<Boolean> {
        @Override
        public Boolean convert(String value) {
            return switch (value.strip()) {
                case "on" -> Boolean.TRUE;
                case "off" -> Boolean.FALSE;
                default -> throw new TypeConversionException("'" + value + "' is not on or off");
            };
        }
    }
}
