package io.cronoq.scheduler.topology;

import io.cronoq.events.TaskRecord;
import io.cronoq.scheduler.policy.store.Place;
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
    /** pool \0 class \0 rank sequence → task id: the waiting index, per requirement class, in line order. */
    public static final String WAITING = "cronoq-waiting";
    /** pool \0 class → number waiting: the class heads' counts, so a restart loads in O(classes). */
    public static final String WAITING_COUNTS = "cronoq-waiting-counts";
    /** pool \0 time \0 task id → task id: the pending timers of waiting tasks, earliest first. */
    public static final String TIMERS = "cronoq-timers";
    /**
     * pool \0 time \0 task id → task id: when each finished task is forgotten (the end of its
     * retention), earliest first; laid out as {@link #TIMERS}, kept apart so a page of waiting tasks
     * never steps over a week of finished ones.
     */
    public static final String EXPIRIES = "cronoq-expiries";

    private static final char SEP = '\0';

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

    /** The pool of a {@link #WAITING}, {@link #TIMERS} or {@link #EXPIRIES} key. */
    public static String poolOfIndexKey(String key) {
        int sep = key.indexOf(SEP);
        return sep < 0 ? key : key.substring(0, sep);
    }

    /** Prefix of all of a pool's workers in {@link #WORKERS}. */
    public static String workerPrefix(String pool) {
        return pool + '/';
    }

    /** Prefix of every key of a pool in {@link #WAITING}, {@link #WAITING_COUNTS}, {@link #TIMERS} and {@link #EXPIRIES}. */
    public static String poolPrefix(String pool) {
        return pool + SEP;
    }

    /** Key of a class's count in {@link #WAITING_COUNTS}. */
    public static String countKey(String pool, String classKey) {
        return pool + SEP + classKey;
    }

    /** Prefix of the entries of one class of a pool in {@link #WAITING}. */
    public static String classPrefix(String pool, String classKey) {
        return pool + SEP + classKey + SEP;
    }

    /**
     * Key of a waiting task in {@link #WAITING}: its class, then its place as two 16-digit hex
     * numbers (rank, sequence) that sort as signed longs, so byte order is line order and the head
     * of a class is one seek, however long the line.
     */
    public static String waitingKey(String pool, String classKey, Place place) {
        return classPrefix(pool, classKey) + sortable(place.rank()) + sortable(place.sequence());
    }

    /** The class of a {@link #WAITING} or {@link #WAITING_COUNTS} key of this pool. */
    public static String classOf(String pool, String key) {
        String rest = key.substring(pool.length() + 1);
        int sep = rest.indexOf(SEP);
        return sep < 0 ? rest : rest.substring(0, sep);
    }

    /** The place in line of a {@link #WAITING} key. */
    public static Place placeOf(String key) {
        int at = key.length() - 32;
        return new Place(unsortable(key.substring(at, at + 16)), unsortable(key.substring(at + 16)));
    }

    /** Key of a timer in {@link #TIMERS} (or {@link #EXPIRIES}): the pool, the time it fires (sortable), then the task id. */
    public static String timerKey(String pool, long atMillis, String taskId) {
        return pool + SEP + sortable(atMillis) + SEP + taskId;
    }

    /** The time a {@link #TIMERS} key fires at. */
    public static long timerAt(String pool, String key) {
        int from = pool.length() + 1;
        return unsortable(key.substring(from, from + 16));
    }

    /** 16 hex digits whose string order is the signed order of {@code value}. */
    static String sortable(long value) {
        String hex = Long.toHexString(value ^ Long.MIN_VALUE);
        return hex.length() == 16 ? hex : "0".repeat(16 - hex.length()) + hex;
    }

    static long unsortable(String hex) {
        return Long.parseUnsignedLong(hex, 16) ^ Long.MIN_VALUE;
    }
}
