package io.cronoq.scheduler.topology;

import io.cronoq.events.TaskRecord;
import java.io.File;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.StoreQueryUtils;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * The tasks store's RocksDB, with the {@link TaskIndex} of its pools beside it: the waiting lines,
 * timers and expiries are derived from the task records instead of being stores (and changelogs)
 * of their own. It sits directly around RocksDB, under Kafka Streams' caching and logging, because
 * that is where restored changelog records arrive:
 * <ul>
 *   <li>when the store opens, one scan of what RocksDB holds (a clean restart's checkpointed state) builds the index;
 *   <li>every restored batch takes out what the replaced records said and puts in what the new ones say, so a
 *       standby keeps its index current as it follows the changelog, and a standby promoted to active (which keeps
 *       its store objects) is ready without a scan; records replayed a second time change nothing;
 *   <li>the stream thread's own writes do not touch the index: the policy changes it as it decides, and keeps each
 *       record saying the same ({@code RecordedPlaces});
 *   <li>closing forgets the index.
 * </ul>
 * Each line and queue keeps its first entries in memory ({@link #IN_MEMORY_CONFIG}) and the rest in a second,
 * unlogged RocksDB in the stream task's directory ({@link SpillDisk}), opened empty with the store and deleted
 * when it closes (over an in-memory store, everything stays in memory).
 * Queries reach the index with {@link IndexQuery}; the processor with {@link #indexOf}.
 * <p>
 * It also answers {@link #getPosition()} without a copy; see there.
 */
public final class IndexedTaskStore extends WrappedStateStore<KeyValueStore<Bytes, byte[]>, Bytes, byte[]>
        implements KeyValueStore<Bytes, byte[]> {

    private final TaskIndex index;
    private final Deserializer<TaskRecord> records;
    private StateStoreContext context;
    /** The input offsets this store's writes came from, advanced at each write as RocksDB advances its own. */
    private Position position = Position.emptyPosition();
    /** Whether Kafka Streams writes positions into the changelog (an internal setting cronoq leaves off). */
    private boolean positionsLogged;

    private IndexedTaskStore(KeyValueStore<Bytes, byte[]> rocks, TaskIndex index, Deserializer<TaskRecord> records) {
        super(rocks);
        this.index = index;
        this.records = records;
    }

    /** A supplier of tasks stores named {@code name}, each RocksDB with its index under these rules. */
    static KeyValueBytesStoreSupplier supplier(KeyValueBytesStoreSupplier rocks, Serde<TaskRecord> serde,
                                               io.cronoq.scheduler.policy.TimeRules rules) {
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return rocks.name();
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return new IndexedTaskStore(rocks.get(), new TaskIndex(rules), serde.deserializer());
            }

            @Override
            public String metricsScope() {
                return rocks.metricsScope();
            }
        };
    }

    /** The index beside the tasks store {@code store} (any layer of it), or {@code null} when it has none. */
    public static TaskIndex indexOf(StateStore store) {
        IndexedTaskStore indexed = store instanceof IndexedTaskStore self ? self
                : store instanceof WrappedStateStore<?, ?, ?> layers ? layers.findInner(IndexedTaskStore.class) : null;
        return indexed == null ? null : indexed.index;
    }

    /** An interactive query for the index of one partition's tasks store. */
    public static final class IndexQuery implements Query<TaskIndex> {
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        index.clear();
        wrapped().init(new RestoreTap(context), root);
        this.context = context;
        this.position = wrapped().getPosition();
        this.positionsLogged = Boolean.parseBoolean(String.valueOf(
                context.appConfigs().get(StreamsConfig.InternalConfig.IQ_CONSISTENCY_OFFSET_VECTOR_ENABLED)));
        if (wrapped().persistent()) { // an in-memory tasks store (tests) keeps its index wholly in memory too
            index.spillTo(SpillDisk.open(new File(context.stateDir(), name() + ".index")), inMemory(context.appConfigs()));
        }
        // One scan: each record is read once and says its own keys, and nobody reads the index yet.
        try (KeyValueIterator<Bytes, byte[]> all = wrapped().all(); SpillDisk.Load load = index.load()) {
            all.forEachRemaining(kv -> index.add(decode(kv.value)));
        }
    }

    @Override
    public void close() {
        index.clear();
        super.close();
    }

    /**
     * The setting that says how many entries of each line and queue the index keeps in memory
     * ({@link #IN_MEMORY_CONFIG}), or {@link #DEFAULT_IN_MEMORY}.
     */
    static int inMemory(Map<String, Object> configs) {
        Object value = configs.get(IN_MEMORY_CONFIG);
        if (value == null) {
            return DEFAULT_IN_MEMORY;
        }
        try {
            int entries = Integer.parseInt(String.valueOf(value).trim());
            if (entries >= MIN_IN_MEMORY) {
                return entries;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(IN_MEMORY_CONFIG + " is '" + value + "'; it must be a whole number of at least "
                + MIN_IN_MEMORY);
    }

    /** The Kafka Streams property (the scheduler's setting of the same name) read by {@link #inMemory}. */
    public static final String IN_MEMORY_CONFIG = "cronoq.index.memory.entries";
    /** The entries of each line and queue kept in memory when the settings do not say. */
    public static final int DEFAULT_IN_MEMORY = 256;
    /** The fewest entries of a line or queue kept in memory. */
    public static final int MIN_IN_MEMORY = SpillingMap.MIN_HEAD;

    @Override
    @SuppressWarnings("unchecked")
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        if (query instanceof IndexQuery) {
            QueryResult<R> result = QueryResult.forResult((R) index);
            result.setPosition(wrapped().getPosition());
            return result;
        }
        return super.query(query, positionBound, config);
    }

    /**
     * Applies a restored batch to RocksDB and to the index: first every key's value before the batch
     * is taken out, then its last value in the batch put in (a task moved between keys in one batch
     * keeps its entries).
     */
    private void restore(Collection<ConsumerRecord<byte[], byte[]>> batch, RecordBatchingStateRestoreCallback rocks) {
        Map<Bytes, byte[]> last = new LinkedHashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : batch) {
            last.put(Bytes.wrap(record.key()), record.value());
        }
        for (Bytes key : last.keySet()) {
            byte[] before = wrapped().get(key);
            if (before != null) {
                index.remove(decode(before));
            }
        }
        rocks.restoreBatch(batch);
        for (byte[] after : last.values()) {
            if (after != null) {
                index.add(decode(after));
            }
        }
    }

    private TaskRecord decode(byte[] value) {
        return records.deserialize(name(), value);
    }

    /**
     * What this store's writes have seen of the inputs: the same as RocksDB's own position, but the live
     * object, not a copy, so readers must not change it. Kafka Streams' changelog layer asks the store
     * under it for its position at every write, and RocksDB answers with a deep copy (maps of maps) that
     * the layer throws away unless it logs positions, which cronoq never turns on: a twentieth of the
     * stream thread at 5,000 tasks/s. When positions are logged, this is RocksDB's copy.
     */
    @Override
    public Position getPosition() {
        return positionsLogged ? wrapped().getPosition() : position;
    }

    private void advance() {
        StoreQueryUtils.updatePosition(position, context);
    }

    // The store's reads and writes go to RocksDB untouched.

    @Override
    public void put(Bytes key, byte[] value) {
        wrapped().put(key, value);
        advance();
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] before = wrapped().putIfAbsent(key, value);
        if (before == null) {
            advance();
        }
        return before;
    }

    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        wrapped().putAll(entries);
        advance();
    }

    @Override
    public byte[] delete(Bytes key) {
        byte[] before = wrapped().delete(key);
        advance();
        return before;
    }

    @Override
    public byte[] get(Bytes key) {
        return wrapped().get(key);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return wrapped().range(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return wrapped().reverseRange(from, to);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return wrapped().all();
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return wrapped().reverseAll();
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, PS prefixKeySerializer) {
        return wrapped().prefixScan(prefix, prefixKeySerializer);
    }

    @Override
    public long approximateNumEntries() {
        return wrapped().approximateNumEntries();
    }

    /** The store context RocksDB is opened with: the same, but the restore callback RocksDB registers goes through {@link #restore}. */
    private final class RestoreTap implements StateStoreContext {

        private final StateStoreContext context;

        RestoreTap(StateStoreContext context) {
            this.context = context;
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback) {
            context.register(store, tap(callback));
        }

        @Override
        public void register(StateStore store, StateRestoreCallback callback, CommitCallback checkpoint) {
            context.register(store, tap(callback), checkpoint);
        }

        private StateRestoreCallback tap(StateRestoreCallback callback) {
            if (!(callback instanceof RecordBatchingStateRestoreCallback rocks)) {
                throw new IllegalStateException("the tasks store's RocksDB registered a restore callback of an unknown kind ("
                        + callback.getClass().getName() + "): its index could not follow restores");
            }
            return (RecordBatchingStateRestoreCallback) batch -> restore(batch, rocks);
        }

        @Override
        public String applicationId() {
            return context.applicationId();
        }

        @Override
        public TaskId taskId() {
            return context.taskId();
        }

        @Override
        public Optional<RecordMetadata> recordMetadata() {
            return context.recordMetadata();
        }

        @Override
        public Serde<?> keySerde() {
            return context.keySerde();
        }

        @Override
        public Serde<?> valueSerde() {
            return context.valueSerde();
        }

        @Override
        public File stateDir() {
            return context.stateDir();
        }

        @Override
        public StreamsMetrics metrics() {
            return context.metrics();
        }

        @Override
        public Map<String, Object> appConfigs() {
            return context.appConfigs();
        }

        @Override
        public Map<String, Object> appConfigsWithPrefix(String prefix) {
            return context.appConfigsWithPrefix(prefix);
        }
    }
}
