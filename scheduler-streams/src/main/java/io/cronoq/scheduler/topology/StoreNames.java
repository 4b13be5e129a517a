package io.cronoq.scheduler.topology;

/**
 * Names of the scheduler's RocksDB state stores. They name the changelog topics too, so they never
 * change: renaming one orphans its changelog and loses state.
 */
public final class StoreNames {

    /** Task id → {@code TaskRecord}: every task, its state and its attempts. */
    public static final String TASKS = "cronoq-tasks";
    /** pool/worker id → {@code WorkerRecord}: every worker registration. */
    public static final String WORKERS = "cronoq-workers";
    /** pool → {@code PoolRecord}: per-pool counters. */
    public static final String POOLS = "cronoq-pools";
    /** pool \0 class \0 order → task id: the waiting index, per requirement class, in line order. */
    public static final String WAITING = "cronoq-waiting";
    /** pool \0 class → number waiting: the class heads' counts, so a restart loads in O(classes). */
    public static final String WAITING_COUNTS = "cronoq-waiting-counts";

    private StoreNames() {}

    /** Key of a worker in {@link #WORKERS}; '/' cannot occur in a pool name, so a pool's workers share the prefix. */
    public static String workerKey(String pool, String workerId) {
        return pool + '/' + workerId;
    }

    /** Prefix of all of a pool's workers in {@link #WORKERS}. */
    public static String workerPrefix(String pool) {
        return pool + '/';
    }
}
