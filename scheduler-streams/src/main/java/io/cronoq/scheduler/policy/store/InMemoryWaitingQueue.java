package io.cronoq.scheduler.policy.store;

import io.cronoq.scheduler.policy.common.Peak;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link WaitingQueue} in memory: per line, its one entry, or a {@code TreeMap} by place once it
 * holds more (a line of its own is common: a task naming a concurrency key often waits alone). For
 * tests, benchmarks, replay and simulation; the topology keeps the same entries in a form its
 * queries may read while it writes ({@code PoolIndex}).
 */
public final class InMemoryWaitingQueue implements WaitingQueue {

    /** Line key → its only {@link Entry}, or a {@code TreeMap<Place, Entry>} of two or more. */
    private Map<String, Object> lines = new HashMap<>();
    private final Peak peak = new Peak();

    @Override
    @SuppressWarnings("unchecked")
    public void add(Entry entry) {
        Object line = lines.get(entry.classKey());
        if (line == null) {
            lines.put(entry.classKey(), entry);
            peak.grew(lines.size());
        } else if (line instanceof Entry only) {
            if (only.place().equals(entry.place())) {
                lines.put(entry.classKey(), entry);
                return;
            }
            TreeMap<Place, Entry> many = new TreeMap<>();
            many.put(only.place(), only);
            many.put(entry.place(), entry);
            lines.put(entry.classKey(), many);
        } else {
            ((TreeMap<Place, Entry>) line).put(entry.place(), entry);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void remove(String classKey, Place place) {
        Object line = lines.get(classKey);
        if (line instanceof Entry only) {
            if (only.place().equals(place)) {
                lines.remove(classKey); // a line that empties goes: keys of lines come and go (limits)
                if (peak.shrinkNow(lines.size())) {
                    lines = new HashMap<>(lines);
                }
            }
        } else if (line != null) {
            TreeMap<Place, Entry> many = (TreeMap<Place, Entry>) line;
            many.remove(place);
            if (many.size() == 1) {
                lines.put(classKey, many.firstEntry().getValue());
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public Entry first(String classKey) {
        Object line = lines.get(classKey);
        if (line == null || line instanceof Entry) {
            return (Entry) line;
        }
        TreeMap<Place, Entry> many = (TreeMap<Place, Entry>) line;
        return many.isEmpty() ? null : many.firstEntry().getValue();
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<Entry> first(String classKey, int max) {
        Object line = lines.get(classKey);
        if (line == null || max <= 0) {
            return List.of();
        }
        if (line instanceof Entry only) {
            return List.of(only);
        }
        List<Entry> first = new ArrayList<>(Math.min(max, ((TreeMap<Place, Entry>) line).size()));
        for (Entry e : ((TreeMap<Place, Entry>) line).values()) {
            if (first.size() == max) {
                break;
            }
            first.add(e);
        }
        return first;
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> counts = new HashMap<>();
        lines.forEach((key, line) -> counts.put(key, (long) size(line)));
        return counts;
    }

    /** Waiting tasks in all classes. */
    public long size() {
        long size = 0;
        for (Object line : lines.values()) {
            size += size(line);
        }
        return size;
    }

    /** Every entry, class by class, each class in order (for inspection and tests). */
    @SuppressWarnings("unchecked")
    public List<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        for (Object line : lines.values()) {
            if (line instanceof Entry only) {
                all.add(only);
            } else {
                all.addAll(((TreeMap<Place, Entry>) line).values());
            }
        }
        return all;
    }

    @SuppressWarnings("unchecked")
    private static int size(Object line) {
        return line instanceof Entry ? 1 : ((TreeMap<Place, Entry>) line).size();
    }
}
