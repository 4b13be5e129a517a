package io.cronoq.scheduler.topology;

import io.cronoq.scheduler.policy.store.KeyedDependencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The dependencies store ({@link StoreNames#DEPENDENCIES}) as the sorted map {@link KeyedDependencyStore} keeps its
 * keys in: the scheduler's view writes through it (its caching layer holds the writes until the commit), a query's
 * view only reads and refuses every write.
 */
public final class DependencyEntries implements KeyedDependencyStore.Sorted {

    private static final StringSerializer KEYS = new StringSerializer();

    private final ReadOnlyKeyValueStore<String, byte[]> read;
    /** {@code null}: read-only. */
    private final KeyValueStore<String, byte[]> write;

    private DependencyEntries(ReadOnlyKeyValueStore<String, byte[]> read, KeyValueStore<String, byte[]> write) {
        this.read = read;
        this.write = write;
    }

    /** The scheduler's entries: read and written. */
    static DependencyEntries of(KeyValueStore<String, byte[]> store) {
        return new DependencyEntries(store, store);
    }

    /** A query's entries: read only. */
    public static DependencyEntries readOnly(ReadOnlyKeyValueStore<String, byte[]> store) {
        return new DependencyEntries(store, null);
    }

    @Override
    public byte[] get(String key) {
        return read.get(key);
    }

    @Override
    public void put(String key, byte[] value) {
        writable().put(key, value);
    }

    @Override
    public void delete(String key) {
        writable().delete(key);
    }

    @Override
    public List<Map.Entry<String, byte[]>> withPrefix(String prefix) {
        List<Map.Entry<String, byte[]>> entries = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = read.prefixScan(prefix, KEYS)) {
            it.forEachRemaining(kv -> entries.add(Map.entry(kv.key, kv.value)));
        }
        return entries;
    }

    private KeyValueStore<String, byte[]> writable() {
        if (write == null) {
            throw new UnsupportedOperationException("the query side reads the dependencies store; it never writes it");
        }
        return write;
    }
}
