package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.WaitingQueue;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One pool's waiting index in RocksDB. Keys are {@code pool \0 class \0 order} with the order as 16
 * hex digits, so byte order is line order and the head of a class is one seek, however long the line.
 */
final class StoreWaitingQueue implements WaitingQueue {

    private static final char SEP = '\0';
    private static final StringSerializer PREFIX_SERIALIZER = new StringSerializer();

    private final String pool;
    private final KeyValueStore<String, String> entries;
    private final KeyValueStore<String, Long> counts;

    StoreWaitingQueue(String pool, KeyValueStore<String, String> entries, KeyValueStore<String, Long> counts) {
        this.pool = pool;
        this.entries = entries;
        this.counts = counts;
    }

    @Override
    public void add(Entry entry) {
        entries.put(entryKey(entry.classKey(), entry.order()), entry.taskId());
        adjustCount(entry.classKey(), +1);
    }

    @Override
    public void remove(String classKey, long order) {
        if (entries.delete(entryKey(classKey, order)) != null) {
            adjustCount(classKey, -1);
        }
    }

    @Override
    public Entry first(String classKey) {
        String prefix = classPrefix(classKey);
        try (KeyValueIterator<String, String> it = entries.prefixScan(prefix, PREFIX_SERIALIZER)) {
            if (!it.hasNext()) {
                return null;
            }
            KeyValue<String, String> head = it.next();
            long order = Long.parseUnsignedLong(head.key.substring(prefix.length()), 16);
            return new Entry(classKey, order, head.value);
        }
    }

    @Override
    public Map<String, Long> counts() {
        Map<String, Long> result = new HashMap<>();
        String prefix = pool + SEP;
        try (KeyValueIterator<String, Long> it = counts.prefixScan(prefix, PREFIX_SERIALIZER)) {
            it.forEachRemaining(kv -> result.put(kv.key.substring(prefix.length()), kv.value));
        }
        return result;
    }

    private void adjustCount(String classKey, int delta) {
        String key = pool + SEP + classKey;
        Long current = counts.get(key);
        long next = (current == null ? 0 : current) + delta;
        if (next <= 0) {
            counts.delete(key);
        } else {
            counts.put(key, next);
        }
    }

    private String classPrefix(String classKey) {
        return pool + SEP + classKey + SEP;
    }

    private String entryKey(String classKey, long order) {
        String hex = Long.toHexString(order);
        return classPrefix(classKey) + "0".repeat(16 - hex.length()) + hex;
    }
}
