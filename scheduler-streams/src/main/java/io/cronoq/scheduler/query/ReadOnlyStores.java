package io.cronoq.scheduler.query;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.topology.StoreNames;
import java.util.Objects;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The eight scheduler state stores the queries read (all but the finished tasks' expiries),
 * read-only: from a running {@link KafkaStreams} (one partition or every local one) or from
 * anything else that holds them (a {@code TopologyTestDriver}).
 * Getting them from Kafka Streams throws {@code InvalidStateStoreException} while they restore.
 */
public record ReadOnlyStores(ReadOnlyKeyValueStore<String, TaskRecord> tasks,
                             ReadOnlyKeyValueStore<String, WorkerRecord> workers,
                             ReadOnlyKeyValueStore<String, PoolRecord> pools,
                             ReadOnlyKeyValueStore<String, SharingRecord> sharing,
                             ReadOnlyKeyValueStore<String, LimitsRecord> limits,
                             ReadOnlyKeyValueStore<String, String> waiting,
                             ReadOnlyKeyValueStore<String, Long> waitingCounts,
                             ReadOnlyKeyValueStore<String, String> timers) {

    /** Checks that every store is there. */
    public ReadOnlyStores {
        Objects.requireNonNull(tasks, "tasks");
        Objects.requireNonNull(workers, "workers");
        Objects.requireNonNull(pools, "pools");
        Objects.requireNonNull(sharing, "sharing");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(waiting, "waiting");
        Objects.requireNonNull(waitingCounts, "waitingCounts");
        Objects.requireNonNull(timers, "timers");
    }

    /** The active stores of one input partition on this instance (a pool lives in exactly one). */
    public static ReadOnlyStores partition(KafkaStreams streams, int partition) {
        return new ReadOnlyStores(
                streams.store(params(StoreNames.TASKS, partition)),
                streams.store(params(StoreNames.WORKERS, partition)),
                streams.store(params(StoreNames.POOLS, partition)),
                streams.store(params(StoreNames.SHARING, partition)),
                streams.store(params(StoreNames.LIMITS, partition)),
                streams.store(params(StoreNames.WAITING, partition)),
                streams.store(params(StoreNames.WAITING_COUNTS, partition)),
                streams.store(params(StoreNames.TIMERS, partition)));
    }

    private static <V> StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> params(String store, int partition) {
        return StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.<String, V>keyValueStore())
                .withPartition(partition);
    }
}
