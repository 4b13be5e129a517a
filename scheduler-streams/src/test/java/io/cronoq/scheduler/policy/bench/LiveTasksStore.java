package io.cronoq.scheduler.policy.bench;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.util.HashMap;
import java.util.Map;

/**
 * Memory behind the policy's benchmarks: an {@link InMemoryPoolStore} (shared references), except that
 * finished tasks are forgotten, as a store with retention would, so the heap measures the
 * live state and not the history of millions of operations.
 */
final class LiveTasksStore implements PoolStore {
    private final InMemoryPoolStore delegate = new InMemoryPoolStore();
    private final Map<String, TaskRecord> tasks = new HashMap<>(1 << 21);

    @Override
    public PoolRecord pool() {
        return delegate.pool();
    }

    @Override
    public void putPool(PoolRecord pool) {
        delegate.putPool(pool);
    }

    @Override
    public SharingRecord sharing() {
        return delegate.sharing();
    }

    @Override
    public void putSharing(SharingRecord sharing) {
        delegate.putSharing(sharing);
    }

    @Override
    public LimitsRecord limits() {
        return delegate.limits();
    }

    @Override
    public void putLimits(LimitsRecord limits) {
        delegate.putLimits(limits);
    }

    @Override
    public TaskRecord task(String taskId) {
        return tasks.get(taskId);
    }

    @Override
    public void putTask(TaskRecord task) {
        TaskState s = task.getState();
        if (s == TaskState.SUCCEEDED || s == TaskState.FAILED || s == TaskState.CANCELLED) {
            tasks.remove(task.getTask().getTaskId());
        } else {
            tasks.put(task.getTask().getTaskId(), task);
        }
    }

    @Override
    public void deleteTask(String taskId) {
        tasks.remove(taskId);
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        return delegate.workers();
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        delegate.putWorker(worker);
    }

    @Override
    public WaitingQueue waiting() {
        return delegate.waiting();
    }

    @Override
    public TimerQueue timers() {
        return delegate.timers();
    }

    /** Finished tasks are forgotten at once here, so their expiries are not kept either. */
    @Override
    public TimerQueue expiries() {
        return NO_EXPIRIES;
    }

    private static final TimerQueue NO_EXPIRIES = new TimerQueue() {
        @Override
        public void add(Timer timer) {}

        @Override
        public void remove(Timer timer) {}

        @Override
        public Timer first() {
            return null;
        }

        @Override
        public java.util.List<Timer> first(int max) {
            return java.util.List.of();
        }
    };

    @Override
    public io.cronoq.scheduler.policy.store.DependencyStore dependencies() {
        return delegate.dependencies();
    }
}
