package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.TimerQueue;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One pool's timers in RocksDB ({@link StoreNames#TIMERS}), keyed as {@link StoreNames#timerKey}
 * lays out, so the earliest is one seek. Like the waiting lines, it seeks from the last timer it
 * found rather than the pool's start, stepping over none of the fired timers' tombstones.
 */
final class StoreTimerQueue implements TimerQueue {

    private final String pool;
    private final KeyValueStore<String, String> timers;
    /** A time before which no timer of the pool is pending, or {@code null} when unknown. */
    private Long floor;

    StoreTimerQueue(String pool, KeyValueStore<String, String> timers) {
        this.pool = pool;
        this.timers = timers;
    }

    @Override
    public void add(Timer timer) {
        timers.put(StoreNames.timerKey(pool, timer.atMillis(), timer.taskId()), timer.taskId());
        if (floor != null && timer.atMillis() < floor) {
            floor = timer.atMillis();
        }
    }

    @Override
    public void remove(Timer timer) {
        timers.delete(StoreNames.timerKey(pool, timer.atMillis(), timer.taskId()));
    }

    @Override
    public Timer first() {
        String from = floor == null ? StoreNames.poolPrefix(pool) : StoreNames.timerKey(pool, floor, "");
        try (KeyValueIterator<String, String> it = timers.range(from, StoreNames.timerKey(pool, Long.MAX_VALUE, "\uffff"))) {
            if (!it.hasNext()) {
                floor = Long.MAX_VALUE;
                return null;
            }
            KeyValue<String, String> next = it.next();
            long at = StoreNames.timerAt(pool, next.key);
            floor = at;
            return new Timer(at, next.value);
        }
    }
}
