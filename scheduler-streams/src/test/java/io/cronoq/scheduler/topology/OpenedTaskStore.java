package io.cronoq.scheduler.topology;

import io.cronoq.events.TaskRecord;
import io.cronoq.scheduler.policy.TimeRules;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A tasks store over real RocksDB in {@code dir}, opened as the topology builds it (with its index),
 * the restore callback it registered, to be called as Kafka Streams' changelog reader calls it, and
 * the context it was opened with, whose record metadata stands for the input being processed.
 */
record OpenedTaskStore(KeyValueStore<Bytes, byte[]> store, RecordBatchingStateRestoreCallback restore,
                       MockProcessorContext<?, ?> context) {

    static OpenedTaskStore open(File dir, Serde<TaskRecord> serde, TimeRules rules) {
        return open(dir, serde, rules, false);
    }

    /**
     * With {@code transactional}, RocksDB buffers writes until a commit, as the scheduler runs it under exactly-once.
     * Its index keeps the fewest entries of each line and queue in memory, so that longer ones go through the disk.
     */
    static OpenedTaskStore open(File dir, Serde<TaskRecord> serde, TimeRules rules, boolean transactional) {
        return open(dir, serde, rules, transactional, IndexedTaskStore.MIN_IN_MEMORY);
    }

    /** As above, the index keeping {@code inMemory} entries of each line and queue in memory. */
    static OpenedTaskStore open(File dir, Serde<TaskRecord> serde, TimeRules rules, boolean transactional, int inMemory) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "indexed-store");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "dummy:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        props.put("processing.exception.handler.global.enabled", "true"); // as the scheduler sets it; quiets a warning
        props.put(IndexedTaskStore.IN_MEMORY_CONFIG, Integer.toString(inMemory));
        if (transactional) {
            props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
            props.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, "true");
        }
        MockProcessorContext<?, ?> mock = new MockProcessorContext<>(props, new TaskId(0, 0), dir);
        StateStoreContext real = mock.getStateStoreContext();
        RecordBatchingStateRestoreCallback[] registered = new RecordBatchingStateRestoreCallback[1];
        StateStoreContext capturing = (StateStoreContext) Proxy.newProxyInstance(OpenedTaskStore.class.getClassLoader(),
                new Class<?>[] {StateStoreContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("register")) {
                        registered[0] = (RecordBatchingStateRestoreCallback) (StateRestoreCallback) args[1];
                        return null;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        KeyValueStore<Bytes, byte[]> store =
                IndexedTaskStore.supplier(Stores.persistentKeyValueStore(StoreNames.TASKS), serde, rules).get();
        store.init(capturing, store);
        return new OpenedTaskStore(store, registered[0], mock);
    }

    TaskIndex index() {
        return IndexedTaskStore.indexOf(store);
    }
}
