package io.cronoq.ops;

import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.schemas.rules.LimitRules;
import io.cronoq.schemas.rules.Violation;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The concurrency key limits and rate limits a scheduler's config file sets at start, as the
 * {@code LimitSet} events the scheduler journals like any admin change:
 *
 * <pre>
 * [[limits.keys]]
 * pool = "gpu"
 * key = "customer-42"
 * max = 2
 *
 * [[limits.rates]]
 * pool = "gpu"
 * name = "openai"
 * perSecond = 10
 * burst = 20          # optional: perSecond rounded up
 * </pre>
 *
 * Every entry is checked by the scheduler's own rules ({@link LimitRules}) before anything starts; a
 * malformed one is refused naming it and its key ({@code limits.rates[0].perSecond is 0.0; ...}), as
 * are unknown keys and two entries for the same key, or rate limit, of a pool.
 */
final class LimitsConfig {

    private static final Set<String> KEY_KEYS = new TreeSet<>(List.of("pool", "key", "max"));
    private static final Set<String> RATE_KEYS = new TreeSet<>(List.of("pool", "name", "perSecond", "burst"));

    private LimitsConfig() {}

    /**
     * The config file's limits: one event per {@code [[limits.keys]]} entry, then one per
     * {@code [[limits.rates]]} entry, stamped {@code at}; empty when it sets none.
     *
     * @throws IllegalArgumentException naming the entry and key that is wrong, and what to write
     */
    static List<LimitSet> read(Path file, Instant at) {
        List<List<Map<String, Object>>> entries = ConfigFile.section(file, "limits", List.of("keys", "rates"));
        return fromEntries(entries.get(0), entries.get(1), at);
    }

    /** The limits of these entries (see {@link #read}). */
    static List<LimitSet> fromEntries(List<Map<String, Object>> keys, List<Map<String, Object>> rates, Instant at) {
        List<LimitSet> events = new ArrayList<>();
        events.addAll(entries("keys", keys, KEY_KEYS, LimitsConfig::keyEntry, "key", "key", at));
        events.addAll(entries("rates", rates, RATE_KEYS, LimitsConfig::rateEntry, "name", "rate limit", at));
        return events;
    }

    /** Reads one section's entries, refusing a second entry for the same name of a pool. */
    private static List<LimitSet> entries(String section, List<Map<String, Object>> tables, Set<String> known,
                                          EntryReader reader, String nameKey, String noun, Instant at) {
        List<LimitSet> events = new ArrayList<>();
        Map<List<String>, String> seen = new HashMap<>();
        for (int i = 0; i < tables.size(); i++) {
            ConfigEntry entry = new ConfigEntry("limits." + section + "[" + i + "]", ".", tables.get(i), known);
            LimitSet event = reader.read(entry, at);
            String earlier = seen.putIfAbsent(List.of(event.getPool(), event.getName()), entry.where());
            if (earlier != null) {
                throw entry.refused(nameKey, nameKey + " " + event.getName() + " of pool " + event.getPool()
                        + " is already set by " + earlier + "; give each " + noun + " of a pool one [[limits."
                        + section + "]] entry");
            }
            events.add(event);
        }
        return events;
    }

    private static LimitSet keyEntry(ConfigEntry entry, Instant at) {
        String pool = entry.text("pool", "gpu");
        String key = entry.text("key", "customer-42");
        Integer max = entry.whole("max", ", e.g. max = 2");
        if (max == null) {
            throw entry.refused("max", "max is missing; e.g. max = 2 (attempts holding key " + key
                    + " at once; remove a key's limit with `cronoq limits key --pool " + pool + " --key " + key
                    + " --remove`)");
        }
        return checked(entry, new LimitSet(pool, LimitKind.CONCURRENCY_KEY, key, max, null, null,
                SharingConfig.SET_BY, at), "key");
    }

    private static LimitSet rateEntry(ConfigEntry entry, Instant at) {
        String pool = entry.text("pool", "gpu");
        String name = entry.text("name", "openai");
        Double perSecond = entry.number("perSecond");
        Integer burst = entry.whole("burst", " of units, e.g. burst = 20 (or leave it out: perSecond rounded up)");
        if (perSecond == null) {
            throw entry.refused("perSecond", "perSecond is missing; e.g. perSecond = 10 (units refilled per second; "
                    + "remove a rate limit with `cronoq limits rate --pool " + pool + " --name " + name + " --remove`)");
        }
        return checked(entry, new LimitSet(pool, LimitKind.RATE_LIMIT, name, null, perSecond, burst,
                SharingConfig.SET_BY, at), "name");
    }

    /** The event, if it keeps every limit rule; else the rule it breaks, named by the entry's key. */
    private static LimitSet checked(ConfigEntry entry, LimitSet event, String nameKey) {
        Optional<Violation> broken = LimitRules.check(event);
        if (broken.isPresent()) {
            throw entry.refused(broken.get(), Map.of("name", nameKey));
        }
        return event;
    }

    /** Makes the event of one entry. */
    @FunctionalInterface
    private interface EntryReader {
        LimitSet read(ConfigEntry entry, Instant at);
    }
}
