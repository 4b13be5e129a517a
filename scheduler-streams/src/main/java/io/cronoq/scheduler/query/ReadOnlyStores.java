package io.cronoq.scheduler.query;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.topology.IndexedTaskStore;
import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.scheduler.topology.TaskIndex;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The scheduler state the queries read, read-only: the six stores of records, and the index of
 * waiting lines and timers kept beside the tasks store. From a running {@link KafkaStreams} (one
 * partition) or from anything else that holds them (a {@code TopologyTestDriver}). Getting them
 * from Kafka Streams throws {@code InvalidStateStoreException} while they restore.
 */
public record ReadOnlyStores(ReadOnlyKeyValueStore<String, TaskRecord> tasks,
                             ReadOnlyKeyValueStore<String, WorkerRecord> workers,
                             ReadOnlyKeyValueStore<String, PoolRecord> pools,
                             ReadOnlyKeyValueStore<String, SharingRecord> sharing,
                             ReadOnlyKeyValueStore<String, LimitsRecord> limits,
                             ReadOnlyKeyValueStore<String, byte[]> dependencies,
                             TaskIndex index) {

    /** Checks that every store is there. */
    public ReadOnlyStores {
        Objects.requireNonNull(tasks, "tasks");
        Objects.requireNonNull(workers, "workers");
        Objects.requireNonNull(pools, "pools");
        Objects.requireNonNull(sharing, "sharing");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(dependencies, "dependencies");
        Objects.requireNonNull(index, "index");
    }

    /** The active stores of one input partition on this instance (a pool lives in exactly one). */
    public static ReadOnlyStores partition(KafkaStreams streams, int partition) {
        return new ReadOnlyStores(
                streams.store(params(StoreNames.TASKS, partition)),
                streams.store(params(StoreNames.WORKERS, partition)),
                streams.store(params(StoreNames.POOLS, partition)),
                streams.store(params(StoreNames.SHARING, partition)),
                streams.store(params(StoreNames.LIMITS, partition)),
                streams.store(params(StoreNames.DEPENDENCIES, partition)),
                index(streams, partition));
    }

    /** The stores as something that hands them out by name gives them (e.g. a {@code TopologyTestDriver}'s {@code getKeyValueStore}). */
    @SuppressWarnings("unchecked")
    public static ReadOnlyStores of(Function<String, StateStore> byName) {
        Function<String, ReadOnlyKeyValueStore<String, ?>> kv = name -> (ReadOnlyKeyValueStore<String, ?>) byName.apply(name);
        StateStore tasks = byName.apply(StoreNames.TASKS);
        return new ReadOnlyStores(
                (ReadOnlyKeyValueStore<String, TaskRecord>) tasks,
                (ReadOnlyKeyValueStore<String, WorkerRecord>) kv.apply(StoreNames.WORKERS),
                (ReadOnlyKeyValueStore<String, PoolRecord>) kv.apply(StoreNames.POOLS),
                (ReadOnlyKeyValueStore<String, SharingRecord>) kv.apply(StoreNames.SHARING),
                (ReadOnlyKeyValueStore<String, LimitsRecord>) kv.apply(StoreNames.LIMITS),
                (ReadOnlyKeyValueStore<String, byte[]>) kv.apply(StoreNames.DEPENDENCIES),
                IndexedTaskStore.indexOf(tasks));
    }

    private static TaskIndex index(KafkaStreams streams, int partition) {
        var result = streams.query(StateQueryRequest.inStore(StoreNames.TASKS)
                .withQuery(new IndexedTaskStore.IndexQuery()).withPartitions(Set.of(partition)).requireActive());
        QueryResult<TaskIndex> answer = result.getPartitionResults().get(partition);
        if (answer == null || answer.isFailure()) {
            throw new InvalidStateStoreException("the index of partition " + partition + " cannot be read now"
                    + (answer == null ? "" : ": " + answer.getFailureMessage()));
        }
        return answer.getResult();
    }

    private static <V> StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> params(String store, int partition) {
        return StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.<String, V>keyValueStore())
                .withPartition(partition);
    }
}
