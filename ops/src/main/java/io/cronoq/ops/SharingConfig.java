package io.cronoq.ops;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.SharingRules;
import io.cronoq.schemas.rules.Violation;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sharing policy a scheduler's config file sets at start, as the {@code SharingPolicySet}
 * events the scheduler journals like any admin change:
 *
 * <pre>
 * [[sharing.tenants]]
 * pool = "gpu"
 * tenant = "research"
 * weight = 3
 * quotas = [{ labels = { gpu = "a100" }, guaranteed = 4, max = 16 }]
 *
 * [[sharing.pools]]
 * pool = "gpu"
 * preemption = true
 * preemption_grace = "30s"
 * </pre>
 *
 * Every entry is checked by the scheduler's own rules ({@link SharingRules}) before anything
 * starts; a malformed one is refused naming it and its key ({@code [[sharing.tenants]] entry 1:
 * quotas[0].guaranteed ...}), as are unknown keys and two entries for the same tenant or pool.
 */
final class SharingConfig {

    /** Who set the policy, as the journal says it. */
    static final String SET_BY = "config file";

    private static final Set<String> TENANT_KEYS = new TreeSet<>(List.of("pool", "tenant", "weight", "quotas"));
    private static final Set<String> QUOTA_KEYS = new TreeSet<>(List.of("labels", "guaranteed", "max"));
    private static final Set<String> POOL_KEYS = new TreeSet<>(List.of("pool", "preemption", "preemption_grace"));

    private SharingConfig() {}

    /**
     * The config file's policy: one event per {@code [[sharing.pools]]} entry, then one per
     * {@code [[sharing.tenants]]} entry, stamped {@code at}; empty when it sets none.
     *
     * @throws IllegalArgumentException naming the entry and key that is wrong, and what to write
     */
    static List<SharingPolicySet> read(Path file, Instant at) {
        List<List<Map<String, Object>>> entries = ConfigFile.section(file, "sharing", List.of("tenants", "pools"));
        return fromEntries(entries.get(0), entries.get(1), at);
    }

    /** The policy of these entries (see {@link #read}). */
    static List<SharingPolicySet> fromEntries(List<Map<String, Object>> tenants, List<Map<String, Object>> pools,
                                              Instant at) {
        List<SharingPolicySet> events = new ArrayList<>();
        Set<String> seenPools = new HashSet<>();
        for (int i = 0; i < pools.size(); i++) {
            ConfigEntry entry = entry("pools", i, pools.get(i), POOL_KEYS);
            SharingPolicySet event = poolEntry(entry, at);
            if (!seenPools.add(event.getPool())) {
                throw entry.refused("pool", "pool " + event.getPool() + " is already set by an earlier entry; "
                        + "give each pool one [[sharing.pools]] entry");
            }
            events.add(event);
        }
        Set<List<String>> seenTenants = new HashSet<>();
        for (int i = 0; i < tenants.size(); i++) {
            ConfigEntry entry = entry("tenants", i, tenants.get(i), TENANT_KEYS);
            SharingPolicySet event = tenantEntry(entry, at);
            if (!seenTenants.add(List.of(event.getPool(), event.getTenant()))) {
                throw entry.refused("tenant", "tenant " + event.getTenant() + " of pool " + event.getPool()
                        + " is already set by an earlier entry; give each tenant of a pool one [[sharing.tenants]] entry");
            }
            events.add(event);
        }
        return events;
    }

    private static SharingPolicySet poolEntry(ConfigEntry entry, Instant at) {
        String pool = entry.text("pool", "gpu");
        Boolean preemption = entry.bool("preemption");
        Long graceMs = entry.duration("preemption_grace");
        if (preemption == null && graceMs == null) {
            throw entry.refused("preemption", "preemption and preemption_grace are both missing, so there is nothing "
                    + "to set for pool " + pool + ": give preemption = true|false, preemption_grace = \"30s\", or both");
        }
        return checked(entry, new SharingPolicySet(pool, null, null, null, preemption, graceMs, SET_BY, at));
    }

    private static SharingPolicySet tenantEntry(ConfigEntry entry, Instant at) {
        String pool = entry.text("pool", "gpu");
        String tenant = entry.text("tenant", "research");
        Double weight = entry.number("weight");
        List<TenantQuota> quotas = quotas(entry);
        if (weight == null && quotas == null) {
            throw entry.refused("weight", "weight and quotas are both missing, so there is nothing to set for tenant "
                    + tenant + " of pool " + pool + ": give weight = 3, quotas = [{ labels = { gpu = \"a100\" }, "
                    + "guaranteed = 4, max = 16 }], or both");
        }
        return checked(entry, new SharingPolicySet(pool, tenant, weight, quotas, null, null, SET_BY, at));
    }

    /** The entry's {@code quotas} list, or null when not given (an empty list removes the tenant's quotas). */
    private static List<TenantQuota> quotas(ConfigEntry entry) {
        Object value = entry.get("quotas");
        if (value == null) {
            return null;
        }
        if (!(value instanceof List<?> list)) {
            throw entry.refused("quotas", "quotas must be a list of tables, e.g. quotas = [{ labels = { gpu = \"a100\" }, "
                    + "guaranteed = 4, max = 16 }]");
        }
        List<TenantQuota> quotas = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String field = "quotas[" + i + "]";
            if (!(list.get(i) instanceof Map<?, ?> quota)) {
                throw entry.refused(field, field + " must be a table, e.g. { labels = { gpu = \"a100\" }, guaranteed = 4 }");
            }
            for (Object key : quota.keySet()) {
                if (!QUOTA_KEYS.contains(key)) {
                    throw entry.refused(field, field + " has an unknown key '" + key + "'; known keys: " + QUOTA_KEYS);
                }
            }
            Integer guaranteed = entry.whole(field + ".guaranteed", quota.get("guaranteed"), " of slots, e.g. 4");
            Integer max = entry.whole(field + ".max", quota.get("max"), " of slots, e.g. 4");
            if (guaranteed == null && max == null) {
                throw entry.refused(field, field + " sets nothing; give guaranteed, max or both");
            }
            quotas.add(new TenantQuota(labels(entry, field + ".labels", quota.get("labels")),
                    guaranteed == null ? 0 : guaranteed, max));
        }
        return quotas;
    }

    private static Map<String, String> labels(ConfigEntry entry, String field, Object value) {
        Map<String, String> labels = new HashMap<>();
        if (value == null) {
            return labels; // the whole pool
        }
        if (!(value instanceof Map<?, ?> map)) {
            throw entry.refused(field, field + " must be a table of labels, e.g. labels = { gpu = \"a100\" } "
                    + "(leave it out for the whole pool)");
        }
        for (Map.Entry<?, ?> label : map.entrySet()) {
            if (!(label.getValue() instanceof String text)) {
                throw entry.refused(field + "." + label.getKey(), field + "." + label.getKey()
                        + " must be a string, e.g. " + label.getKey() + " = \"" + label.getValue() + "\"");
            }
            labels.put(String.valueOf(label.getKey()), text);
        }
        return labels;
    }

    /** The event, if it keeps every sharing rule; else the rule it breaks, named by the entry's key. */
    private static SharingPolicySet checked(ConfigEntry entry, SharingPolicySet event) {
        Optional<Violation> broken = SharingRules.check(event);
        if (broken.isPresent()) {
            throw entry.refused(broken.get(), Map.of("preemptionGraceMs", "preemption_grace"));
        }
        return event;
    }

    /** An entry of {@code [[sharing.<section>]]}, named in messages as {@code [[sharing.tenants]] entry 1: weight ...}. */
    private static ConfigEntry entry(String section, int index, Map<String, Object> values, Set<String> known) {
        return new ConfigEntry("[[sharing." + section + "]] entry " + index, ": ", values, known);
    }
}
