package io.cronoq.scheduler.topology;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.Topics;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * The stores a {@link SchedulerProcessor} reads, in memory, added to a {@link MockProcessorContext}
 * as the topology builds them: the tasks store carries its index. Logging and caching are off; the commit hook
 * runs nothing on a mock context, so the processor sends what each input caused at the input's end.
 */
final class MockStores {

    private MockStores() {
    }

    /** Adds every store; {@code tasks} may wrap the tasks store's in-memory bytes store (to make it fail). */
    static void add(MockProcessorContext<Object, Object> context, Topics topics,
                    UnaryOperator<KeyValueBytesStoreSupplier> tasks) {
        Serde<TaskRecord> taskSerde = topics.serde(TaskRecord.class);
        add(context, taskSerde, IndexedTaskStore.supplier(
                tasks.apply(Stores.inMemoryKeyValueStore(StoreNames.TASKS)), taskSerde, TimeRules.DEFAULT));
        add(context, topics.serde(WorkerRecord.class), Stores.inMemoryKeyValueStore(StoreNames.WORKERS));
        add(context, topics.serde(PoolRecord.class), Stores.inMemoryKeyValueStore(StoreNames.POOLS));
        add(context, topics.serde(SharingRecord.class), Stores.inMemoryKeyValueStore(StoreNames.SHARING));
        add(context, topics.serde(LimitsRecord.class), Stores.inMemoryKeyValueStore(StoreNames.LIMITS));
        CommitHook hook = CommitHook.builder(StoreNames.COMMIT_HOOK).build();
        hook.init(context.getStateStoreContext(), hook);
        context.addStateStore(hook);
    }

    private static <V> void add(MockProcessorContext<Object, Object> context, Serde<V> serde,
                                KeyValueBytesStoreSupplier supplier) {
        KeyValueStore<String, V> store = Stores.keyValueStoreBuilder(supplier, Serdes.String(), serde)
                .withLoggingDisabled().withCachingDisabled().build();
        store.init(context.getStateStoreContext(), store);
        context.addStateStore(store);
    }
}
