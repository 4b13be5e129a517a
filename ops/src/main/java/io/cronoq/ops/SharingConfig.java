package io.cronoq.ops;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.SharingRules;
import io.cronoq.schemas.rules.Violation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
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

    private static final Set<String> SECTION_KEYS = new TreeSet<>(List.of("tenants", "pools"));
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
        for (String key : ConfigFile.keys(file, "sharing")) {
            if (!SECTION_KEYS.contains(key)) {
                throw new IllegalArgumentException("--config " + file + ": [sharing] has an unknown key '" + key
                        + "'; known: [[sharing.tenants]] and [[sharing.pools]]");
            }
        }
        return fromEntries(ConfigFile.tables(file, "sharing.tenants"), ConfigFile.tables(file, "sharing.pools"), at);
    }

    /** The policy of these entries (see {@link #read}). */
    static List<SharingPolicySet> fromEntries(List<Map<String, Object>> tenants, List<Map<String, Object>> pools,
                                              Instant at) {
        List<SharingPolicySet> events = new ArrayList<>();
        Set<String> seenPools = new HashSet<>();
        for (int i = 0; i < pools.size(); i++) {
            Entry entry = new Entry("[[sharing.pools]] entry " + i, pools.get(i), POOL_KEYS);
            SharingPolicySet event = poolEntry(entry, at);
            if (!seenPools.add(event.getPool())) {
                throw entry.refused("pool", "pool " + event.getPool() + " is already set by an earlier entry; "
                        + "give each pool one [[sharing.pools]] entry");
            }
            events.add(event);
        }
        Set<List<String>> seenTenants = new HashSet<>();
        for (int i = 0; i < tenants.size(); i++) {
            Entry entry = new Entry("[[sharing.tenants]] entry " + i, tenants.get(i), TENANT_KEYS);
            SharingPolicySet event = tenantEntry(entry, at);
            if (!seenTenants.add(List.of(event.getPool(), event.getTenant()))) {
                throw entry.refused("tenant", "tenant " + event.getTenant() + " of pool " + event.getPool()
                        + " is already set by an earlier entry; give each tenant of a pool one [[sharing.tenants]] entry");
            }
            events.add(event);
        }
        return events;
    }

    private static SharingPolicySet poolEntry(Entry entry, Instant at) {
        String pool = entry.text("pool", true);
        Boolean preemption = entry.bool("preemption");
        Long graceMs = entry.duration("preemption_grace");
        if (preemption == null && graceMs == null) {
            throw entry.refused("preemption", "preemption and preemption_grace are both missing, so there is nothing "
                    + "to set for pool " + pool + ": give preemption = true|false, preemption_grace = \"30s\", or both");
        }
        return entry.checked(new SharingPolicySet(pool, null, null, null, preemption, graceMs, SET_BY, at));
    }

    private static SharingPolicySet tenantEntry(Entry entry, Instant at) {
        String pool = entry.text("pool", true);
        String tenant = entry.text("tenant", true);
        Double weight = entry.number("weight");
        List<TenantQuota> quotas = entry.quotas();
        if (weight == null && quotas == null) {
            throw entry.refused("weight", "weight and quotas are both missing, so there is nothing to set for tenant "
                    + tenant + " of pool " + pool + ": give weight = 3, quotas = [{ labels = { gpu = \"a100\" }, "
                    + "guaranteed = 4, max = 16 }], or both");
        }
        return entry.checked(new SharingPolicySet(pool, tenant, weight, quotas, null, null, SET_BY, at));
    }

    /** One entry of an array of tables, with where it is for messages. */
    private record Entry(String where, Map<String, Object> values, Set<String> known) {

        Entry {
            for (String key : values.keySet()) {
                if (!known.contains(key)) {
                    throw new IllegalArgumentException(where + ": unknown key '" + key + "'; known keys: " + known);
                }
            }
        }

        String text(String key, boolean required) {
            Object value = values.get(key);
            if (value == null && required) {
                throw refused(key, key + " is missing; e.g. " + key + " = \"" + (key.equals("pool") ? "gpu" : "research")
                        + "\"");
            }
            if (value != null && !(value instanceof String)) {
                throw refused(key, key + " must be a string, e.g. " + key + " = \"" + value + "\"");
            }
            return (String) value;
        }

        Boolean bool(String key) {
            Object value = values.get(key);
            if (value != null && !(value instanceof Boolean)) {
                throw refused(key, key + " must be true or false (no quotes)");
            }
            return (Boolean) value;
        }

        Double number(String key) {
            Object value = values.get(key);
            if (value != null && !(value instanceof Number)) {
                throw refused(key, key + " must be a number, e.g. " + key + " = 3 or " + key + " = 0.5");
            }
            return value == null ? null : ((Number) value).doubleValue();
        }

        Long duration(String key) {
            Object value = values.get(key);
            if (value == null) {
                return null;
            }
            if (!(value instanceof String text)) {
                throw refused(key, key + " must be a duration in quotes, e.g. " + key + " = \"30s\"");
            }
            Duration d;
            try {
                d = Durations.parse(text);
            } catch (IllegalArgumentException e) {
                throw refused(key, key + " " + e.getMessage());
            }
            if (d.isNegative()) {
                throw refused(key, key + " is " + text + "; a grace is 0 or more, e.g. " + key + " = \"30s\"");
            }
            return d.toMillis();
        }

        /** The {@code quotas} list, or null when not given (an empty list removes the tenant's quotas). */
        List<TenantQuota> quotas() {
            Object value = values.get("quotas");
            if (value == null) {
                return null;
            }
            if (!(value instanceof List<?> list)) {
                throw refused("quotas", "quotas must be a list of tables, e.g. quotas = [{ labels = { gpu = \"a100\" }, "
                        + "guaranteed = 4, max = 16 }]");
            }
            List<TenantQuota> quotas = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                String field = "quotas[" + i + "]";
                if (!(list.get(i) instanceof Map<?, ?> quota)) {
                    throw refused(field, field + " must be a table, e.g. { labels = { gpu = \"a100\" }, guaranteed = 4 }");
                }
                for (Object key : quota.keySet()) {
                    if (!QUOTA_KEYS.contains(key)) {
                        throw refused(field, field + " has an unknown key '" + key + "'; known keys: " + QUOTA_KEYS);
                    }
                }
                Integer guaranteed = slots(field + ".guaranteed", quota.get("guaranteed"));
                Integer max = slots(field + ".max", quota.get("max"));
                if (guaranteed == null && max == null) {
                    throw refused(field, field + " sets nothing; give guaranteed, max or both");
                }
                quotas.add(new TenantQuota(labels(field + ".labels", quota.get("labels")),
                        guaranteed == null ? 0 : guaranteed, max));
            }
            return quotas;
        }

        private Map<String, String> labels(String field, Object value) {
            Map<String, String> labels = new HashMap<>();
            if (value == null) {
                return labels; // the whole pool
            }
            if (!(value instanceof Map<?, ?> map)) {
                throw refused(field, field + " must be a table of labels, e.g. labels = { gpu = \"a100\" } "
                        + "(leave it out for the whole pool)");
            }
            for (Map.Entry<?, ?> label : map.entrySet()) {
                if (!(label.getValue() instanceof String text)) {
                    throw refused(field + "." + label.getKey(), field + "." + label.getKey()
                            + " must be a string, e.g. " + label.getKey() + " = \"" + label.getValue() + "\"");
                }
                labels.put(String.valueOf(label.getKey()), text);
            }
            return labels;
        }

        private Integer slots(String field, Object value) {
            if (value == null) {
                return null;
            }
            boolean whole = value instanceof Integer || value instanceof Long || value instanceof Short
                    || value instanceof BigInteger || (value instanceof BigDecimal d && d.stripTrailingZeros().scale() <= 0);
            if (!whole || ((Number) value).longValue() > Integer.MAX_VALUE
                    || ((Number) value).longValue() < Integer.MIN_VALUE) {
                throw refused(field, field + " is " + value + "; give a whole number of slots, e.g. 4");
            }
            return ((Number) value).intValue();
        }

        /** The event, if it keeps every sharing rule; else the rule it breaks, named by this entry's key. */
        SharingPolicySet checked(SharingPolicySet event) {
            Optional<Violation> broken = SharingRules.check(event);
            if (broken.isPresent()) {
                String field = broken.get().field().equals("preemptionGraceMs") ? "preemption_grace" : broken.get().field();
                throw refused(field, broken.get().message());
            }
            return event;
        }

        /** A refusal naming this entry and {@code key}: {@code [[sharing.tenants]] entry 1: weight ...}. */
        IllegalArgumentException refused(String key, String message) {
            return new IllegalArgumentException(where + ": " + (message.startsWith(key) ? message : key + ": " + message));
        }
    }
}
