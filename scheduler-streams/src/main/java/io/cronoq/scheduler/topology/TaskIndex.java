package io.cronoq.scheduler.topology;

import io.cronoq.events.TaskRecord;
import io.cronoq.scheduler.policy.RecordedPlaces;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The indexes of every pool in one tasks store (one stream task): each pool's {@link PoolIndex}.
 * {@link #add} and {@link #remove} put in or take out what a task record says of itself, so
 * applying a record's old value and then its new one keeps the indexes equal to the records, and
 * applying the same record twice changes nothing.
 */
public final class TaskIndex {

    private final Map<String, PoolIndex> pools = new ConcurrentHashMap<>();
    private final TimeRules rules;
    /** Where lines and queues keep what is beyond {@link #inMemory}; {@code null}: everything in memory. */
    private SpillDisk disk;
    private int inMemory;

    /** An index wholly in memory until {@link #spillTo} gives it a disk. */
    TaskIndex(TimeRules rules) {
        this.rules = rules;
    }

    /** Empties the index and keeps, from now on, {@code inMemory} entries of each line and queue in memory and the rest on {@code disk}. */
    void spillTo(SpillDisk disk, int inMemory) {
        pools.clear();
        this.disk = disk;
        this.inMemory = inMemory;
    }

    /**
     * Starts filling the index from records that each say keys of their own, before anyone reads it (the
     * scan of a store being opened): its disk, if it has one, takes the entries as a {@link SpillDisk#load}.
     */
    SpillDisk.Load load() {
        return disk == null ? () -> { } : disk.load();
    }

    /** The index of a pool, made empty on first use. */
    public PoolIndex pool(String pool) {
        return pools.computeIfAbsent(pool, p -> new PoolIndex(disk, inMemory));
    }

    /** The index of a pool, or {@code null} when nothing of it was ever indexed here. */
    public PoolIndex find(String pool) {
        return pools.get(pool);
    }

    /** Every pool's index, by pool; a read-only view. */
    public Map<String, PoolIndex> pools() {
        return Collections.unmodifiableMap(pools);
    }

    /** Indexes what the record says of its task. */
    void add(TaskRecord task) {
        PoolIndex index = pool(task.getTask().getPool());
        WaitingQueue.Entry entry = RecordedPlaces.lineEntry(task);
        if (entry != null) {
            index.waiting().add(entry);
        }
        TimerQueue.Timer timer = RecordedPlaces.timer(task);
        if (timer != null) {
            index.timers().add(timer);
        }
        TimerQueue.Timer expiry = RecordedPlaces.expiry(task, rules);
        if (expiry != null) {
            index.expiries().add(expiry);
        }
    }

    /** Takes out what the record says of its task (nothing when it is not there). */
    void remove(TaskRecord task) {
        PoolIndex index = pools.get(task.getTask().getPool());
        if (index == null) {
            return;
        }
        WaitingQueue.Entry entry = RecordedPlaces.lineEntry(task);
        if (entry != null) {
            index.waiting().remove(entry.classKey(), entry.place());
        }
        TimerQueue.Timer timer = RecordedPlaces.timer(task);
        if (timer != null) {
            index.timers().remove(timer);
        }
        TimerQueue.Timer expiry = RecordedPlaces.expiry(task, rules);
        if (expiry != null) {
            index.expiries().remove(expiry);
        }
    }

    /** Forgets everything and closes its disk (the store closed, or is about to be read again from its start). */
    void clear() {
        pools.clear();
        if (disk != null) {
            disk.close();
            disk = null;
        }
    }
}
