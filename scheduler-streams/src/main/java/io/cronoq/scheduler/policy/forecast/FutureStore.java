package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.store.DependencyStore;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.InMemoryWaitingQueue;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificData;

/**
 * The store of one future of a forecast, over a frozen {@link PoolCopy} that every future shares: what the
 * future writes is its own, and a task's record is copied from the frozen one only when the future first
 * reads it, so a future costs what it touches, not what was copied (a line of 20,000 tasks is not copied
 * nineteen times to place a few hundred). The waiting lines too: the frozen lines stay as they are, and
 * the future keeps which of their entries it took out, a cursor past the taken heads, and the entries it
 * added. Not thread-safe: one future, one thread.
 */
final class FutureStore implements PoolStore {

    private final InMemoryPoolStore own = new InMemoryPoolStore();
    private final Map<String, TaskRecord> frozen;
    private final Set<String> deleted = new HashSet<>();
    private final Lines lines;

    /** A future's store over the frozen tasks and lines; the counters, workers and timers are given as its own. */
    FutureStore(Map<String, TaskRecord> frozenTasks, Map<String, List<WaitingQueue.Entry>> frozenLines) {
        this.frozen = frozenTasks;
        this.lines = new Lines(frozenLines);
    }

    @Override
    public PoolRecord pool() {
        return own.pool();
    }

    @Override
    public void putPool(PoolRecord pool) {
        own.putPool(pool);
    }

    @Override
    public SharingRecord sharing() {
        return own.sharing();
    }

    @Override
    public void putSharing(SharingRecord sharing) {
        own.putSharing(sharing);
    }

    @Override
    public LimitsRecord limits() {
        return own.limits();
    }

    @Override
    public void putLimits(LimitsRecord limits) {
        own.putLimits(limits);
    }

    @Override
    public TaskRecord task(String taskId) {
        TaskRecord mine = own.task(taskId);
        if (mine != null || deleted.contains(taskId)) {
            return mine;
        }
        TaskRecord shared = frozen.get(taskId);
        if (shared == null) {
            return null;
        }
        TaskRecord copy = copyOf(shared);
        own.putTask(copy);
        return copy;
    }

    /**
     * A record of the future's own: the policy changes what it reads and puts it back, and must never change
     * the frozen one. Its fields are taken as they are but for the attempts, which the policy changes in
     * place and which are copied; the submission inside is shared, as the policy never changes a task's
     * submission (a forecast that gave the same estimates twice over one copy shows it).
     */
    private static TaskRecord copyOf(TaskRecord shared) {
        TaskRecord copy = new TaskRecord();
        for (int i = 0; i < TaskRecord.SCHEMA$.getFields().size(); i++) {
            copy.put(i, shared.get(i));
        }
        List<AttemptRecord> attempts = new ArrayList<>(shared.getAttempts().size() + 1);
        for (AttemptRecord a : shared.getAttempts()) {
            attempts.add(SpecificData.get().deepCopy(a.getSchema(), a));
        }
        copy.setAttempts(attempts);
        return copy;
    }

    @Override
    public void putTask(TaskRecord task) {
        deleted.remove(task.getTask().getTaskId());
        own.putTask(task);
    }

    @Override
    public void deleteTask(String taskId) {
        own.deleteTask(taskId);
        deleted.add(taskId);
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        return own.workers();
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        own.putWorker(worker);
    }

    @Override
    public WaitingQueue waiting() {
        return lines;
    }

    @Override
    public TimerQueue timers() {
        return own.timers();
    }

    @Override
    public DependencyStore dependencies() {
        return own.dependencies();
    }

    @Override
    public TimerQueue expiries() {
        return own.expiries();
    }

    /** The frozen lines, less what this future took out, plus what it added. */
    private static final class Lines implements WaitingQueue {
        private final Map<String, List<Entry>> frozen;
        /** Per line, the index of its first frozen entry not taken out (the heads go first, mostly). */
        private final Map<String, Integer> cursor = new HashMap<>();
        /** Per line, the places of the frozen entries taken out. */
        private final Map<String, Set<Place>> taken = new HashMap<>();
        private final InMemoryWaitingQueue added = new InMemoryWaitingQueue();

        Lines(Map<String, List<Entry>> frozen) {
            this.frozen = frozen;
        }

        @Override
        public void add(Entry entry) {
            Set<Place> out = taken.get(entry.classKey());
            if (out != null && out.remove(entry.place())) {
                cursor.remove(entry.classKey()); // back in its frozen place: the cursor looks again
                return;
            }
            added.add(entry);
        }

        @Override
        public void remove(String classKey, Place place) {
            added.remove(classKey, place);
            List<Entry> line = frozen.get(classKey);
            if (line != null && indexOf(line, place) >= 0) {
                taken.computeIfAbsent(classKey, k -> new HashSet<>()).add(place);
            }
        }

        @Override
        public Entry first(String classKey) {
            Entry fromFrozen = frozenFirst(classKey);
            Entry fromAdded = added.first(classKey);
            if (fromFrozen == null) {
                return fromAdded;
            }
            return fromAdded == null || fromFrozen.place().compareTo(fromAdded.place()) < 0 ? fromFrozen : fromAdded;
        }

        @Override
        public List<Entry> first(String classKey, int max) {
            List<Entry> merged = new ArrayList<>(added.first(classKey, max));
            List<Entry> line = frozen.getOrDefault(classKey, List.of());
            Set<Place> out = taken.getOrDefault(classKey, Set.of());
            int kept = 0;
            for (int i = cursorOf(classKey); i < line.size() && kept < max; i++) {
                if (!out.contains(line.get(i).place())) {
                    merged.add(line.get(i));
                    kept++;
                }
            }
            merged.sort((a, b) -> a.place().compareTo(b.place()));
            return merged.size() > max ? merged.subList(0, max) : merged;
        }

        @Override
        public Map<String, Long> counts() {
            Map<String, Long> counts = new HashMap<>(added.counts());
            frozen.forEach((line, entries) -> {
                long left = entries.size() - taken.getOrDefault(line, Set.of()).size();
                if (left > 0) {
                    counts.merge(line, left, Long::sum);
                }
            });
            return counts;
        }

        private Entry frozenFirst(String classKey) {
            List<Entry> line = frozen.get(classKey);
            if (line == null) {
                return null;
            }
            int i = cursorOf(classKey);
            Set<Place> out = taken.getOrDefault(classKey, Set.of());
            while (i < line.size() && out.contains(line.get(i).place())) {
                i++;
            }
            cursor.put(classKey, i);
            return i < line.size() ? line.get(i) : null;
        }

        private int cursorOf(String classKey) {
            return cursor.getOrDefault(classKey, 0);
        }

        private static int indexOf(List<Entry> line, Place place) {
            int i = Collections.binarySearch(line, new Entry(null, place, null), (a, b) -> a.place().compareTo(b.place()));
            return i;
        }
    }
}
