package io.cronoq.scheduler.policy.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A {@link WaitingQueue} in memory: one {@code TreeMap} per requirement class, keyed by place. For
 * tests, benchmarks, replay and simulation; the topology keeps the same entries in RocksDB.
 */
public final class InMemoryWaitingQueue implements WaitingQueue {

    private final Map<String, TreeMap<Place, Entry>> lines = new HashMap<>();

    @Override
    public void add(Entry entry) {
        lines.computeIfAbsent(entry.classKey(), k -> new TreeMap<>()).put(entry.place(), entry);
    }

    @Override
    public void remove(String classKey, Place place) {
        TreeMap<Place, Entry> line = lines.get(classKey);
        if (line != null) {
            line.remove(place);
            if (line.isEmpty()) {
                lines.remove(classKey); // a line that empties goes: keys of lines come and go (limits)
            }
        }
    }

    @Override
    public Entry first(String classKey) {
        TreeMap<Place, Entry> line = lines.get(classKey);
        return line == null || line.isEmpty() ? null : line.firstEntry().getValue();
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> counts = new HashMap<>();
        lines.forEach((key, line) -> {
            if (!line.isEmpty()) {
                counts.put(key, (long) line.size());
            }
        });
        return counts;
    }

    /** Waiting tasks in all classes. */
    public long size() {
        long size = 0;
        for (TreeMap<Place, Entry> line : lines.values()) {
            size += line.size();
        }
        return size;
    }

    /** Every entry, class by class, each class in order (for inspection and tests). */
    public List<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        for (TreeMap<Place, Entry> line : lines.values()) {
            all.addAll(line.values());
        }
        return all;
    }
}
