package io.cronoq.scheduler.topology;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.store.DependencyStore;
import io.cronoq.scheduler.policy.store.KeyedDependencyStore;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.policy.time.Retention;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * One pool's view of the scheduler's RocksDB stores: what the placement policy reads and writes.
 *
 * <p>The task, worker and pool records an input changes are held here until {@link #flush} (the
 * processor calls it after each input and each tick), so a record changed several times by one
 * input is encoded and written once. Recently used tasks stay decoded in a cache the stream
 * task's pools share ({@link DecodedTasks}), so the reports of an attempt do not decode its task
 * again. Both are safe because every write of these stores goes through this
 * object while it lives, and it lives no longer than its stream task's processor (a revived task
 * makes new ones).
 */
final class StorePoolStore implements PoolStore {

    private final String pool;
    private final WritableStores stores;
    private final WaitingQueue waiting;
    private final TimerQueue timers;
    private final TimerQueue expiries;
    private final DependencyStore dependencies;
    /** Tasks changed by the current input; a {@code null} value is a task deleted. */
    private final Map<String, TaskRecord> changedTasks = new LinkedHashMap<>();
    private final Map<String, WorkerRecord> changedWorkers = new LinkedHashMap<>();
    private PoolRecord changedPool;
    private final DecodedTasks decoded;
    /** Ids of this pool's tasks read under the bare-id key of an earlier release, to move when written. */
    private final Set<String> legacyKeys = new HashSet<>();

    StorePoolStore(String pool, WritableStores stores, DecodedTasks decoded) {
        this.pool = pool;
        this.stores = stores;
        this.decoded = decoded;
        PoolIndex index = stores.index().pool(pool);
        this.waiting = index.waiting();
        this.timers = index.timers();
        this.expiries = index.expiries();
        this.dependencies = new KeyedDependencyStore(pool, DependencyEntries.of(stores.dependencies()));
    }

    /** Writes what the last input (or tick) changed. */
    void flush() {
        if (changedPool != null) {
            stores.pools().put(pool, changedPool);
            changedPool = null;
        }
        changedTasks.forEach((id, task) -> {
            if (task == null) {
                stores.tasks().delete(StoreNames.taskKey(pool, id));
            } else {
                stores.tasks().put(StoreNames.taskKey(pool, id), task);
            }
            if (legacyKeys.remove(id)) {
                stores.tasks().delete(id); // moved to its pool's key
            }
        });
        changedTasks.clear();
        changedWorkers.forEach((id, worker) -> stores.workers().put(StoreNames.workerKey(pool, id), worker));
        changedWorkers.clear();
    }

    @Override
    public PoolRecord pool() {
        return changedPool != null ? changedPool : stores.pools().get(pool);
    }

    @Override
    public void putPool(PoolRecord record) {
        changedPool = record;
    }

    @Override
    public SharingRecord sharing() {
        return stores.sharing().get(pool);
    }

    @Override
    public void putSharing(SharingRecord sharing) {
        stores.sharing().put(pool, sharing); // rare (an admin's change): written at once
    }

    @Override
    public LimitsRecord limits() {
        return stores.limits().get(pool);
    }

    @Override
    public void putLimits(LimitsRecord limits) {
        stores.limits().put(pool, limits); // an admin's change, or a rate-limited assignment: written at once
    }

    @Override
    public TaskRecord task(String taskId) {
        if (changedTasks.containsKey(taskId)) {
            return changedTasks.get(taskId);
        }
        String key = StoreNames.taskKey(pool, taskId);
        TaskRecord task = decoded.get(key);
        if (task == null) {
            task = stores.tasks().get(key);
            if (task == null) {
                task = StoreNames.legacyTask(stores.tasks(), pool, taskId);
                if (task != null) {
                    legacyKeys.add(taskId);
                }
            }
            if (task != null) {
                decoded.keep(key, task);
            }
        }
        return task;
    }

    @Override
    public void putTask(TaskRecord task) {
        String id = task.getTask().getTaskId();
        changedTasks.put(id, task);
        decoded.keep(StoreNames.taskKey(pool, id), task);
    }

    @Override
    public void deleteTask(String taskId) {
        changedTasks.put(taskId, null);
        decoded.remove(StoreNames.taskKey(pool, taskId));
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        List<WorkerRecord> result = new ArrayList<>();
        try (KeyValueIterator<String, WorkerRecord> it =
                     stores.workers().prefixScan(StoreNames.workerPrefix(pool), new StringSerializer())) {
            it.forEachRemaining(kv -> result.add(changedWorkers.getOrDefault(kv.value.getWorkerId(), kv.value)));
        }
        return result;
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        changedWorkers.put(worker.getWorkerId(), worker);
    }

    @Override
    public WaitingQueue waiting() {
        return waiting;
    }

    @Override
    public TimerQueue timers() {
        return timers;
    }

    @Override
    public TimerQueue expiries() {
        return expiries;
    }

    @Override
    public DependencyStore dependencies() {
        return dependencies;
    }

    /**
     * Unfinished tasks recently read or written by one stream task's pools, decoded, least recently
     * used first out ({@value #CAPACITY} at most: about the attempts in flight on a busy instance).
     * Keyed like the tasks store (pool/id), so the pools of a stream task share one.
     */
    static final class DecodedTasks extends LinkedHashMap<String, TaskRecord> {

        static final int CAPACITY = 4_096;

        DecodedTasks() {
            super(256, 0.75f, true);
        }

        /**
         * Keeps {@code task} decoded under {@code key}, unless it has finished: a finished task is seldom
         * read again (a late report, a dependant's check), and decoding it then costs less than the young
         * collections copying the thousands of finished tasks the cache would otherwise keep alive.
         */
        void keep(String key, TaskRecord task) {
            if (Retention.isFinished(task.getState())) {
                remove(key);
            } else {
                put(key, task);
            }
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, TaskRecord> eldest) {
            return size() > CAPACITY;
        }
    }

    /** The scheduler's stores, as one processor sees them. */
    record WritableStores(KeyValueStore<String, TaskRecord> tasks,
                           KeyValueStore<String, WorkerRecord> workers,
                           KeyValueStore<String, PoolRecord> pools,
                           KeyValueStore<String, SharingRecord> sharing,
                           KeyValueStore<String, LimitsRecord> limits,
                           KeyValueStore<String, byte[]> dependencies,
                           TaskIndex index) {

        /** Checks that the tasks store carries its index. */
        WritableStores {
            java.util.Objects.requireNonNull(index, "the tasks store has no index: it must be built by SchedulerTopology");
        }
    }
}
