package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.InMemoryTimerQueue;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.policy.common.Peak;
import java.util.Collections;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One pool's waiting lines, timers and expiries, in memory. They are not logged: they are a function
 * of the pool's task records ({@code RecordedPlaces}), rebuilt from them when the tasks store opens
 * and kept current as it restores ({@link IndexedTaskStore}), and changed by the policy as it
 * decides. One thread writes (the stream thread, or the restoring one); queries read at the same
 * time and see each line in order, though not one instant of all of them.
 */
public final class PoolIndex {

    /** Replaced by a copy (never changed in place by a query) when it held many more lines than now: see {@link Peak}. */
    private volatile Map<String, Line> lines = new ConcurrentHashMap<>();
    /** Written by the one writing thread only. */
    private final Peak peak = new Peak();
    private final InMemoryTimerQueue timers = new InMemoryTimerQueue();
    private final InMemoryTimerQueue expiries = new InMemoryTimerQueue();
    private final WaitingQueue waiting = new Waiting();

    /** The waiting lines, by line key. */
    public WaitingQueue waiting() {
        return waiting;
    }

    /** The pending timers of waiting tasks, earliest first. */
    public TimerQueue timers() {
        return timers;
    }

    /** When finished tasks are forgotten, earliest first. */
    public TimerQueue expiries() {
        return expiries;
    }

    /** Each line's tasks in line order (place → task id), by line key; a read-only view. */
    public Map<String, NavigableMap<Place, String>> lines() {
        Map<String, NavigableMap<Place, String>> view = new HashMap<>();
        lines.forEach((key, line) -> view.put(key, Collections.unmodifiableNavigableMap(line.entries)));
        return view;
    }

    /** The pending timers, earliest first; a read-only view. */
    public NavigableSet<TimerQueue.Timer> pendingTimers() {
        return timers.pending();
    }

    /** When finished tasks are forgotten, earliest first; a read-only view. */
    public NavigableSet<TimerQueue.Timer> pendingExpiries() {
        return expiries.pending();
    }

    /** One line: its entries in order, and their number (a skip list counts itself by walking). */
    private static final class Line {
        final ConcurrentSkipListMap<Place, String> entries = new ConcurrentSkipListMap<>();
        final AtomicLong size = new AtomicLong();
    }

    private final class Waiting implements WaitingQueue {

        @Override
        public void add(Entry entry) {
            Line line = lines.get(entry.classKey());
            if (line == null) {
                line = new Line();
                lines.put(entry.classKey(), line);
                peak.grew(lines.size());
            }
            if (line.entries.put(entry.place(), entry.taskId()) == null) {
                line.size.incrementAndGet();
            }
        }

        @Override
        public void remove(String classKey, Place place) {
            Line line = lines.get(classKey);
            if (line != null && line.entries.remove(place) != null && line.size.decrementAndGet() == 0) {
                lines.remove(classKey, line); // a line that empties goes: keys of lines come and go (limits)
                if (peak.shrinkNow(lines.size())) {
                    lines = new ConcurrentHashMap<>(lines);
                }
            }
        }

        @Override
        public Entry first(String classKey) {
            Line line = lines.get(classKey);
            Map.Entry<Place, String> head = line == null ? null : line.entries.firstEntry();
            return head == null ? null : new Entry(classKey, head.getKey(), head.getValue());
        }

        @Override
        public List<Entry> first(String classKey, int max) {
            Line line = lines.get(classKey);
            if (line == null || max <= 0) {
                return List.of();
            }
            List<Entry> first = new ArrayList<>();
            for (Map.Entry<Place, String> e : line.entries.entrySet()) {
                if (first.size() == max) {
                    break;
                }
                first.add(new Entry(classKey, e.getKey(), e.getValue()));
            }
            return first;
        }

        @Override
        public Map<String, Long> counts() {
            Map<String, Long> counts = new HashMap<>();
            lines.forEach((key, line) -> {
                long size = line.size.get();
                if (size > 0) {
                    counts.put(key, size);
                }
            });
            return counts;
        }
    }
}
