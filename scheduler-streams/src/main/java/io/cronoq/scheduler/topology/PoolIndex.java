package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.policy.common.Peak;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One pool's waiting lines, timers and expiries. They are not logged: they are a function of the
 * pool's task records ({@code RecordedPlaces}), rebuilt from them when the tasks store opens and kept
 * current as it restores ({@link IndexedTaskStore}), and changed by the policy as it decides. Each
 * line and queue keeps its first entries in memory and the rest on the store's local disk
 * ({@link SpillingMap}), so a million waiting or finished tasks do not fill the heap. One thread writes
 * (the stream thread, or the restoring one); queries read at the same time and see each line in order,
 * though not one instant of all of them.
 */
public final class PoolIndex {

    /** Replaced by a copy (never changed in place by a query) when it held many more lines than now: see {@link Peak}. */
    private volatile Map<String, SpillingMap<Place, String>> lines = new ConcurrentHashMap<>();
    /** Written by the one writing thread only. */
    private final Peak peak = new Peak();
    private final SpillDisk disk;
    private final int inMemory;
    private final SpilledTimers timers;
    private final SpilledTimers expiries;
    private final WaitingQueue waiting = new Waiting();

    /** An index keeping {@code inMemory} entries of each line and queue in memory and the rest on {@code disk} (all in memory when it is {@code null}). */
    PoolIndex(SpillDisk disk, int inMemory) {
        this.disk = disk;
        this.inMemory = inMemory;
        this.timers = new SpilledTimers(new SpillingMap<>(IndexCodecs.TIMERS, disk, inMemory));
        this.expiries = new SpilledTimers(new SpillingMap<>(IndexCodecs.TIMERS, disk, inMemory));
    }

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
    public Map<String, SpillingMap<Place, String>> lines() {
        return Collections.unmodifiableMap(lines);
    }

    /** The pending timers, earliest first. */
    public Iterable<TimerQueue.Timer> pendingTimers() {
        return timers.inOrder();
    }

    /** When finished tasks are forgotten, earliest first. */
    public Iterable<TimerQueue.Timer> pendingExpiries() {
        return expiries.inOrder();
    }

    private final class Waiting implements WaitingQueue {

        @Override
        public void add(Entry entry) {
            SpillingMap<Place, String> line = lines.get(entry.classKey());
            if (line == null) {
                line = new SpillingMap<>(IndexCodecs.LINE, disk, inMemory);
                lines.put(entry.classKey(), line);
                peak.grew(lines.size());
            }
            line.put(entry.place(), entry.taskId());
        }

        @Override
        public void remove(String classKey, Place place) {
            SpillingMap<Place, String> line = lines.get(classKey);
            if (line != null && line.remove(place) && line.size() == 0) {
                lines.remove(classKey, line); // a line that empties goes: keys of lines come and go (limits)
                if (peak.shrinkNow(lines.size())) {
                    lines = new ConcurrentHashMap<>(lines);
                }
            }
        }

        @Override
        public Entry first(String classKey) {
            SpillingMap<Place, String> line = lines.get(classKey);
            Map.Entry<Place, String> head = line == null ? null : line.first();
            return head == null ? null : new Entry(classKey, head.getKey(), head.getValue());
        }

        @Override
        public List<Entry> first(String classKey, int max) {
            SpillingMap<Place, String> line = lines.get(classKey);
            if (line == null || max <= 0) {
                return List.of();
            }
            List<Entry> first = new ArrayList<>();
            for (Map.Entry<Place, String> e : line.first(max)) {
                first.add(new Entry(classKey, e.getKey(), e.getValue()));
            }
            return first;
        }

        @Override
        public Map<String, Long> counts() {
            Map<String, Long> counts = new HashMap<>();
            lines.forEach((key, line) -> {
                long size = line.size();
                if (size > 0) {
                    counts.put(key, size);
                }
            });
            return counts;
        }
    }

    /** A timer queue over a {@link SpillingMap} of timers. */
    private static final class SpilledTimers implements TimerQueue {
        private final SpillingMap<Timer, Boolean> timers;

        SpilledTimers(SpillingMap<Timer, Boolean> timers) {
            this.timers = timers;
        }

        @Override
        public void add(Timer timer) {
            timers.put(timer, Boolean.TRUE);
        }

        @Override
        public void remove(Timer timer) {
            timers.remove(timer);
        }

        @Override
        public Timer first() {
            Map.Entry<Timer, Boolean> first = timers.first();
            return first == null ? null : first.getKey();
        }

        @Override
        public List<Timer> first(int max) {
            List<Timer> first = new ArrayList<>(Math.min(max, 64));
            for (Map.Entry<Timer, Boolean> e : timers.first(max)) {
                first.add(e.getKey());
            }
            return first;
        }

        Iterable<Timer> inOrder() {
            return () -> new java.util.Iterator<>() {
                private final java.util.Iterator<Map.Entry<Timer, Boolean>> entries = timers.entries().iterator();

                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public Timer next() {
                    return entries.next().getKey();
                }
            };
        }
    }
}
