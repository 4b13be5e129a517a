package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One pool's waiting index in RocksDB, keyed as {@link StoreNames#waitingKey} lays out: byte order
 * is line order, so the head of a class is one seek, however long the line.
 */
final class StoreWaitingQueue implements WaitingQueue {

    private static final StringSerializer PREFIX_SERIALIZER = new StringSerializer();
    private static final Place LAST = new Place(Long.MAX_VALUE, Long.MAX_VALUE);

    private final String pool;
    private final KeyValueStore<String, String> entries;
    private final KeyValueStore<String, Long> counts;
    /**
     * Per class, a place below which its line holds nothing. A taken head stays in RocksDB as a
     * tombstone until compaction; seeking from here instead of the class's start steps over none
     * of them, so finding the head does not slow down as a long line drains. Only a hint: a class
     * without one is read from its start, and the instance lives no longer than its stream task.
     */
    private final Map<String, Place> floors = new HashMap<>();

    StoreWaitingQueue(String pool, KeyValueStore<String, String> entries, KeyValueStore<String, Long> counts) {
        this.pool = pool;
        this.entries = entries;
        this.counts = counts;
    }

    @Override
    public void add(Entry entry) {
        entries.put(StoreNames.waitingKey(pool, entry.classKey(), entry.place()), entry.taskId());
        floors.computeIfPresent(entry.classKey(), (k, floor) -> entry.place().before(floor) ? entry.place() : floor);
        adjustCount(entry.classKey(), +1);
    }

    @Override
    public void remove(String classKey, Place place) {
        if (entries.delete(StoreNames.waitingKey(pool, classKey, place)) != null) {
            adjustCount(classKey, -1);
        }
    }

    @Override
    public Entry first(String classKey) {
        Place floor = floors.get(classKey);
        String from = floor == null ? StoreNames.classPrefix(pool, classKey) : StoreNames.waitingKey(pool, classKey, floor);
        try (KeyValueIterator<String, String> it = entries.range(from, StoreNames.waitingKey(pool, classKey, LAST))) {
            if (!it.hasNext()) {
                floors.remove(classKey);
                return null;
            }
            KeyValue<String, String> head = it.next();
            Place place = StoreNames.placeOf(head.key);
            floors.put(classKey, place);
            return new Entry(classKey, place, head.value);
        }
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> result = new HashMap<>();
        try (KeyValueIterator<String, Long> it = counts.prefixScan(StoreNames.poolPrefix(pool), PREFIX_SERIALIZER)) {
            it.forEachRemaining(kv -> result.put(StoreNames.classOf(pool, kv.key), kv.value));
        }
        return result;
    }

    private void adjustCount(String classKey, int delta) {
        String key = StoreNames.countKey(pool, classKey);
        Long current = counts.get(key);
        long next = (current == null ? 0 : current) + delta;
        if (next <= 0) {
            counts.delete(key);
        } else {
            counts.put(key, next);
        }
    }
}
