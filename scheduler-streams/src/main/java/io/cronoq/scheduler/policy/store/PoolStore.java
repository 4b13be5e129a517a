package io.cronoq.scheduler.policy.store;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;

/**
 * The storage seam of one pool's scheduler: the state of record that the policy reads and writes.
 * The topology backs it with RocksDB stores and an index of lines and timers derived from them;
 * tests, benchmarks and simulations with memory.
 * Implementations hold only what the policy put: they never decide anything.
 */
public interface PoolStore {

    /** The pool's counters, or {@code null} before the pool's first event. */
    PoolRecord pool();

    void putPool(PoolRecord pool);

    /** How the pool is shared between tenants, or {@code null} when no policy was ever set (weights 1, no quotas). */
    SharingRecord sharing();

    void putSharing(SharingRecord sharing);

    /** The pool's concurrency keys' limits and rate limits, or {@code null} when no admin ever set one. */
    LimitsRecord limits();

    void putLimits(LimitsRecord limits);

    /** The task with this id, or {@code null} when unknown. */
    TaskRecord task(String taskId);

    void putTask(TaskRecord task);

    /** Removes a finished task's record (its retention ended); unknown ids are ignored. */
    void deleteTask(String taskId);

    /** Every worker record of this pool, in any order (read once when the scheduler loads). */
    Iterable<WorkerRecord> workers();

    void putWorker(WorkerRecord worker);

    /** The waiting tasks of this pool, indexed by requirement class. */
    WaitingQueue waiting();

    /** The pending timers of this pool's waiting tasks. */
    TimerQueue timers();

    /** Its tasks' dependencies: children, results, parents' ends heard. */
    DependencyStore dependencies();

    /** When this pool's finished tasks are forgotten: one entry per finished task, at the end of its retention. */
    TimerQueue expiries();
}
