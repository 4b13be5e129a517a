package io.cronoq.scheduler.topology;

import io.cronoq.events.PoolRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.PoolStore;
import io.cronoq.scheduler.policy.TimerQueue;
import io.cronoq.scheduler.policy.WaitingQueue;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/** One pool's view of the scheduler's RocksDB stores: what the placement policy reads and writes. */
final class StorePoolStore implements PoolStore {

    private final String pool;
    private final SchedulerStores stores;
    private final WaitingQueue waiting;
    private final TimerQueue timers;

    StorePoolStore(String pool, SchedulerStores stores) {
        this.pool = pool;
        this.stores = stores;
        this.waiting = new StoreWaitingQueue(pool, stores.waiting(), stores.waitingCounts());
        this.timers = new StoreTimerQueue(pool, stores.timers());
    }

    @Override
    public PoolRecord pool() {
        return stores.pools().get(pool);
    }

    @Override
    public void putPool(PoolRecord record) {
        stores.pools().put(pool, record);
    }

    @Override
    public TaskRecord task(String taskId) {
        return stores.tasks().get(taskId);
    }

    @Override
    public void putTask(TaskRecord task) {
        stores.tasks().put(task.getTask().getTaskId(), task);
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        List<WorkerRecord> result = new ArrayList<>();
        try (KeyValueIterator<String, WorkerRecord> it =
                     stores.workers().prefixScan(StoreNames.workerPrefix(pool), new StringSerializer())) {
            it.forEachRemaining(kv -> result.add(kv.value));
        }
        return result;
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        stores.workers().put(StoreNames.workerKey(pool, worker.getWorkerId()), worker);
    }

    @Override
    public WaitingQueue waiting() {
        return waiting;
    }

    @Override
    public TimerQueue timers() {
        return timers;
    }

    /** The scheduler's stores, as one processor sees them. */
    record SchedulerStores(KeyValueStore<String, TaskRecord> tasks,
                           KeyValueStore<String, WorkerRecord> workers,
                           KeyValueStore<String, PoolRecord> pools,
                           KeyValueStore<String, String> waiting,
                           KeyValueStore<String, Long> waitingCounts,
                           KeyValueStore<String, String> timers) {}
}
