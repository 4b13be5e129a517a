package io.cronoq.scheduler.query;

import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.DependencyStore;
import io.cronoq.scheduler.policy.store.KeyedDependencyStore;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.topology.DependencyEntries;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.topology.PoolIndex;
import io.cronoq.scheduler.topology.StoreNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * One pool's view of the stores for the placement policy's own loading code, so a snapshot is
 * computed by the same {@code PoolScheduler} that places tasks, never by a copy of its rules.
 * Every write fails: a read-side object must never change scheduler state.
 */
final class ReadOnlyPoolStore implements PoolStore {

    private static final StringSerializer KEYS = new StringSerializer();

    private final String pool;
    private final ReadOnlyStores stores;
    private final WaitingQueue waiting;

    ReadOnlyPoolStore(String pool, ReadOnlyStores stores) {
        this.pool = pool;
        this.stores = stores;
        this.waiting = new ReadOnlyWaitingQueue();
    }

    @Override
    public PoolRecord pool() {
        return stores.pools().get(pool);
    }

    @Override
    public SharingRecord sharing() {
        return stores.sharing().get(pool);
    }

    @Override
    public LimitsRecord limits() {
        return stores.limits().get(pool);
    }

    @Override
    public TaskRecord task(String taskId) {
        return StoreNames.task(stores.tasks(), pool, taskId);
    }

    @Override
    public Iterable<WorkerRecord> workers() {
        List<WorkerRecord> result = new ArrayList<>();
        try (KeyValueIterator<String, WorkerRecord> it =
                     stores.workers().prefixScan(StoreNames.workerPrefix(pool), KEYS)) {
            it.forEachRemaining(kv -> result.add(kv.value));
        }
        return result;
    }

    @Override
    public WaitingQueue waiting() {
        return waiting;
    }

    /** Dependencies as stored: children, results, parents' ends heard; every write fails. */
    @Override
    public DependencyStore dependencies() {
        return dependencies(pool, stores);
    }

    /** A pool's dependencies as stored, read-only. */
    static DependencyStore dependencies(String pool, ReadOnlyStores stores) {
        return new KeyedDependencyStore(pool, DependencyEntries.readOnly(stores.dependencies()));
    }

    /** The pool's pending timers as its index holds them, to read (a forecast copies them); every write fails. */
    @Override
    public TimerQueue timers() {
        PoolIndex index = stores.index().find(pool);
        return index == null ? NO_TIMERS : new ReadOnlyTimers(index.timers());
    }

    /** A pool's timers, read-only. */
    private record ReadOnlyTimers(TimerQueue timers) implements TimerQueue {
        @Override
        public void add(Timer timer) {
            throw readOnly();
        }

        @Override
        public void remove(Timer timer) {
            throw readOnly();
        }

        @Override
        public Timer first() {
            return timers.first();
        }

        @Override
        public List<Timer> first(int max) {
            return timers.first(max);
        }
    }

    /** Expiries are the ticking scheduler's business: a snapshot never fires or reads one. */
    @Override
    public TimerQueue expiries() {
        return NO_TIMERS;
    }

    /** No timers at all, read-only. */
    private static final TimerQueue NO_TIMERS = new ReadOnlyTimers(new io.cronoq.scheduler.policy.store.InMemoryTimerQueue());

    @Override
    public void putSharing(SharingRecord record) {
        throw readOnly();
    }

    @Override
    public void putLimits(LimitsRecord record) {
        throw readOnly();
    }

    @Override
    public void putPool(PoolRecord record) {
        throw readOnly();
    }

    @Override
    public void putTask(TaskRecord task) {
        throw readOnly();
    }

    @Override
    public void deleteTask(String taskId) {
        throw readOnly();
    }

    @Override
    public void putWorker(WorkerRecord worker) {
        throw readOnly();
    }

    private static UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException("the query side never writes scheduler state");
    }

    /** The pool's waiting lines, read-only. */
    private final class ReadOnlyWaitingQueue implements WaitingQueue {

        private WaitingQueue lines() {
            PoolIndex index = stores.index().find(pool);
            return index == null ? null : index.waiting();
        }

        @Override
        public Entry first(String classKey) {
            WaitingQueue lines = lines();
            return lines == null ? null : lines.first(classKey);
        }

        @Override
        public List<Entry> first(String classKey, int max) {
            WaitingQueue lines = lines();
            return lines == null ? List.of() : lines.first(classKey, max);
        }

        @Override
        public Map<String, Long> counts() {
            WaitingQueue lines = lines();
            return lines == null ? Map.of() : lines.counts();
        }

        @Override
        public void add(Entry entry) {
            throw readOnly();
        }

        @Override
        public void remove(String classKey, Place place) {
            throw readOnly();
        }
    }
}
