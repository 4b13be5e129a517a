package io.cronoq.scheduler.topology;

import io.cronoq.events.TaskRecord;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Names of the scheduler's RocksDB state stores, and the layout of their keys. The names are the
 * changelog topics' names too, so they never change: renaming one orphans its changelog and loses
 * state. Every reader and writer of a key goes through the functions here.
 */
public final class StoreNames {

    /**
     * pool/task id → {@code TaskRecord}: every task, its state and its attempts. A task is its pool
     * and its id: two pools may use the same id. (Before tasks were keyed by pool, the key was the
     * bare id; such a record is still found, see {@link #task}, and is moved to its pool's key when
     * next written.)
     */
    public static final String TASKS = "cronoq-tasks";
    /** pool/worker id → {@code WorkerRecord}: every worker registration. */
    public static final String WORKERS = "cronoq-workers";
    /** pool → {@code PoolRecord}: per-pool counters. */
    public static final String POOLS = "cronoq-pools";
    /** pool → {@code SharingRecord}: how the pool is shared between tenants (weights, quotas, preemption). */
    public static final String SHARING = "cronoq-sharing";
    /** pool → {@code LimitsRecord}: the pool's concurrency keys' limits and rate limits with their buckets. */
    public static final String LIMITS = "cronoq-limits";
    /**
     * Store of dependencies: each task's children, its result, the parents' ends it heard (bytes by key; see
     * {@code KeyedDependencyStore} for the keys).
     */
    public static final String DEPENDENCIES = "cronoq-dependencies";
    /**
     * Not a store of state: it holds nothing and logs nothing. Kafka Streams tells it when the
     * stream task commits, so the scheduler sends the journal and assignments records it gathered
     * just before ({@link CommitHook}).
     */
    public static final String COMMIT_HOOK = "cronoq-commit-hook";
    /*
     * The waiting lines, timers and expiries are not stores: they are derived from the task records
     * and kept beside the tasks store (IndexedTaskStore). Releases that kept them as the stores
     * cronoq-waiting, cronoq-waiting-counts, cronoq-timers and cronoq-expiries left those changelog
     * topics behind; nothing reads them, and they may be deleted.
     */

    private StoreNames() {}

    /** Key of a worker in {@link #WORKERS}; '/' cannot occur in a pool name, so a pool's workers share the prefix. */
    public static String workerKey(String pool, String workerId) {
        return pool + '/' + workerId;
    }

    /** Key of a task in {@link #TASKS}: its pool, '/', its id ('/' cannot occur in either). */
    public static String taskKey(String pool, String taskId) {
        return pool + '/' + taskId;
    }

    /**
     * The task {@code taskId} of {@code pool} in a {@link #TASKS} store, or {@code null}: under its
     * pool's key, else under the bare id of an earlier release when that record is of this pool.
     */
    public static TaskRecord task(ReadOnlyKeyValueStore<String, TaskRecord> tasks, String pool, String taskId) {
        TaskRecord task = tasks.get(taskKey(pool, taskId));
        return task != null ? task : legacyTask(tasks, pool, taskId);
    }

    /** The task {@code taskId} of {@code pool} under the bare-id key of an earlier release, or {@code null}. */
    public static TaskRecord legacyTask(ReadOnlyKeyValueStore<String, TaskRecord> tasks, String pool, String taskId) {
        TaskRecord legacy = tasks.get(taskId);
        return legacy != null && pool.equals(legacy.getTask().getPool()) ? legacy : null;
    }

    /** Prefix of all of a pool's workers in {@link #WORKERS}. */
    public static String workerPrefix(String pool) {
        return pool + '/';
    }
}
