package io.cronoq.scheduler.query;

import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.GroupSnapshot;
import io.cronoq.scheduler.policy.ClassSnapshot;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.policy.store.LineKeys;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.PoolSnapshot;
import io.cronoq.scheduler.query.PoolState.ClassState;
import io.cronoq.scheduler.query.PoolState.GroupState;
import io.cronoq.scheduler.topology.PoolIndex;
import io.cronoq.scheduler.topology.SpillingMap;
import io.cronoq.scheduler.topology.StoreNames;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Read-side questions over the scheduler's stores — the pools, one pool's state, a task, a page
 * of tasks, the workers, the waiting line — answered from whatever stores it is given (one
 * partition, every local one, a test driver's). It never writes and holds no state of its own;
 * pool figures come from the placement policy's own loading code, so they follow its rules.
 */
public final class SchedulerQueries {

    private static final StringSerializer KEYS = new StringSerializer();

    private final ReadOnlyStores stores;

    public SchedulerQueries(ReadOnlyStores stores) {
        this.stores = stores;
    }

    /**
     * Every pool these stores know, sorted: those with counters (a task was ever submitted) and
     * those with registered workers (a pool with workers but no task yet has no counters).
     */
    public List<String> pools() {
        TreeSet<String> pools = new TreeSet<>();
        try (var it = stores.pools().all()) {
            it.forEachRemaining(kv -> pools.add(kv.key));
        }
        try (var it = stores.workers().all()) {
            it.forEachRemaining(kv -> pools.add(kv.value.getPool()));
        }
        return new ArrayList<>(pools);
    }

    /** The state of one pool, or empty when these stores know nothing of it. */
    public Optional<PoolState> pool(String pool) {
        ReadOnlyPoolStore store = known(pool).orElse(null);
        if (store == null) {
            return Optional.empty();
        }
        PoolScheduler scheduler = new PoolScheduler(pool, store);
        PoolSnapshot snapshot = scheduler.snapshot();
        List<ClassState> classes = classes(scheduler);
        List<GroupState> groups = new ArrayList<>(snapshot.groups().size());
        for (GroupSnapshot g : snapshot.groups()) {
            Instant oldest = null;
            for (ClassState c : classes) {
                if (ClassKeys.includes(g.labels(), Requirement.parse(c.key()).labels())) {
                    oldest = earlier(oldest, c.oldestWaitingSince());
                }
            }
            groups.add(new GroupState(g, ClassKeys.of(g.labels()), g.busy() + g.waiting(), oldest));
        }
        long servable = 0;
        long held = 0;
        Instant oldest = null;
        for (ClassState c : classes) {
            if (c.heldByLimit()) {
                held += c.waiting();
            } else if (c.workers() > 0) {
                servable += c.waiting();
            }
            oldest = earlier(oldest, c.oldestWaitingSince());
        }
        return Optional.of(new PoolState(snapshot, List.copyOf(groups), classes, snapshot.busy() + servable,
                snapshot.waiting() - servable - held, oldest, scheduler.sharing(), held, scheduler.limits(Instant.now())));
    }

    /**
     * The pool's waiting classes as the placement policy sees them (resources included): a class is
     * servable when some ACTIVE worker satisfies its whole requirement.
     */
    private static List<ClassState> classes(PoolScheduler scheduler) {
        List<ClassState> classes = new ArrayList<>();
        for (ClassSnapshot c : scheduler.classes()) {
            Instant since = c.headWaitingSince() != null ? c.headWaitingSince() : c.headSubmittedAt();
            classes.add(new ClassState(c.classKey(), c.tenant(), c.waiting(), c.headTaskId(), since, c.workers(),
                    c.limits(), c.heldByLimit()));
        }
        return List.copyOf(classes);
    }

    /**
     * How one pool is shared between tenants (weights, quotas, what each holds and waits for), or
     * empty when these stores know nothing of the pool. Computed by the policy's own code.
     */
    public Optional<SharingSnapshot> sharing(String pool) {
        return known(pool).map(store -> new PoolScheduler(pool, store).sharing());
    }

    /**
     * One pool's concurrency keys and rate limits (what each key's attempts hold, what each bucket
     * holds at {@code at}, what each holds back), or empty when these stores know nothing of the pool.
     */
    public Optional<LimitsSnapshot> limits(String pool, Instant at) {
        return known(pool).map(store -> new PoolScheduler(pool, store).limits(at));
    }

    /**
     * When the waiting tasks of {@code pool} will start, forecast from its state in these stores at
     * {@code now}; empty when these stores know nothing of the pool.
     */
    public Optional<io.cronoq.scheduler.policy.forecast.Forecast> forecast(String pool,
            io.cronoq.scheduler.policy.forecast.Forecaster forecaster,
            io.cronoq.scheduler.policy.forecast.RunTimes.Lookup runTimes, Instant now) {
        return known(pool).map(store -> forecaster.forecast(pool, store, runTimes, now));
    }

    /** Whether these stores know the pool: it has counters (a task was submitted) or a registered worker. */
    public boolean knows(String pool) {
        return known(pool).isPresent();
    }

    /** The pool's stores, read-only, or empty when these stores know nothing of it. */
    private Optional<ReadOnlyPoolStore> known(String pool) {
        ReadOnlyPoolStore store = new ReadOnlyPoolStore(pool, stores);
        return store.pool() != null || store.workers().iterator().hasNext() ? Optional.of(store) : Optional.empty();
    }

    /** The task {@code taskId} of {@code pool}, or empty. */
    public Optional<TaskRecord> task(String pool, String taskId) {
        return Optional.ofNullable(current(StoreNames.task(stores.tasks(), pool, taskId)));
    }

    /** The result task {@code taskId} of {@code pool} returned with its success, or empty (none, or unknown). */
    public Optional<java.nio.ByteBuffer> result(String pool, String taskId) {
        return Optional.ofNullable(ReadOnlyPoolStore.dependencies(pool, stores).result(taskId));
    }

    /**
     * A task as it is now: a blocked task's record keeps the count of parents it had when blocked; how many it
     * still waits for is kept beside it in the dependencies store, and said here.
     */
    private TaskRecord current(TaskRecord task) {
        if (task == null || task.getState() != TaskState.BLOCKED) {
            return task;
        }
        Integer unmet = ReadOnlyPoolStore.dependencies(task.getTask().getPool(), stores).unmet(task.getTask().getTaskId());
        if (unmet != null) {
            task.setUnmetParents(unmet);
            task.setWaitingReason(io.cronoq.scheduler.policy.Dependencies.waitsFor(task.getTask(), unmet));
        }
        return task;
    }

    /**
     * Every task with this id, one per pool that uses it (ids are unique per pool, not across
     * pools), sorted by pool: a point lookup per pool these stores know.
     */
    public List<TaskRecord> tasksWithId(String taskId) {
        List<TaskRecord> found = new ArrayList<>();
        try (var it = stores.pools().all()) {
            it.forEachRemaining(kv -> {
                TaskRecord task = stores.tasks().get(StoreNames.taskKey(kv.key, taskId));
                if (task != null) {
                    found.add(current(task));
                }
            });
        }
        TaskRecord legacy = stores.tasks().get(taskId);
        if (legacy != null && found.stream().noneMatch(t -> t.getTask().getPool().equals(legacy.getTask().getPool()))) {
            found.add(legacy);
        }
        found.sort(Comparator.comparing(t -> t.getTask().getPool()));
        return found;
    }

    /**
     * A page of tasks, newest first. A workflow's tasks in a pool are one range of keys; for {@code WAITING}
     * it reads the waiting index (of the pool, or of every pool); otherwise it scans every task these stores
     * hold (there is no index by pool or time).
     */
    public List<TaskRecord> tasks(TaskFilter filter) {
        // The page is the `limit` newest that pass: keep them in a heap whose head is the oldest kept.
        PriorityQueue<TaskRecord> page = new PriorityQueue<>(TaskCursor.NEWEST_FIRST.reversed());
        if (filter.workflow() != null && filter.pool() != null) {
            // A workflow's tasks are named "<workflow>:<name>": one range of its pool's keys.
            String from = StoreNames.taskKey(filter.pool(), filter.workflow() + ":");
            try (KeyValueIterator<String, TaskRecord> it = stores.tasks().range(from, from + Character.MAX_VALUE)) {
                it.forEachRemaining(kv -> offer(page, kv.value, filter));
            }
        } else if (filter.state() == TaskState.WAITING) {
            // In a line or waiting for a timer outside one (delayed); a task in a line may have a
            // timer too (its deadline), so each id is offered once.
            PoolIndex one = filter.pool() == null ? null : stores.index().find(filter.pool());
            Map<String, PoolIndex> pools = filter.pool() == null ? stores.index().pools()
                    : one == null ? Map.of() : Map.of(filter.pool(), one);
            pools.forEach((pool, index) -> {
                Set<String> seen = new HashSet<>();
                index.lines().values().forEach(line -> line.entries().forEach(e -> {
                    if (seen.add(e.getValue())) {
                        offer(page, StoreNames.task(stores.tasks(), pool, e.getValue()), filter);
                    }
                }));
                index.pendingTimers().forEach(timer -> {
                    if (seen.add(timer.taskId())) {
                        offer(page, StoreNames.task(stores.tasks(), pool, timer.taskId()), filter);
                    }
                });
                offerWaitingGangs(page, pool, filter);
            });
        } else {
            try (KeyValueIterator<String, TaskRecord> it = stores.tasks().all()) {
                it.forEachRemaining(kv -> offer(page, kv.value, filter));
            }
        }
        List<TaskRecord> result = new ArrayList<>(page.size());
        page.forEach(t -> result.add(current(t)));
        result.sort(TaskCursor.NEWEST_FIRST);
        return result;
    }

    /** The members of the pool's waiting gangs, which wait outside every line (their ids are with the pool's counters). */
    private void offerWaitingGangs(PriorityQueue<TaskRecord> page, String pool, TaskFilter filter) {
        io.cronoq.events.PoolRecord counters = stores.pools().get(pool);
        if (counters == null) {
            return;
        }
        for (String gangId : counters.getWaitingGangs()) {
            TaskRecord first = StoreNames.task(stores.tasks(), pool, io.cronoq.schemas.rules.GangRules.memberId(gangId, 0));
            if (first == null || first.getTask().getGang() == null) {
                continue;
            }
            offer(page, first, filter);
            for (int rank = 1; rank < first.getTask().getGang().getSize(); rank++) {
                offer(page, StoreNames.task(stores.tasks(), pool, io.cronoq.schemas.rules.GangRules.memberId(gangId, rank)),
                        filter);
            }
        }
    }

    private static void offer(PriorityQueue<TaskRecord> page, TaskRecord task, TaskFilter filter) {
        if (task == null || !filter.accepts(task)) {
            return;
        }
        page.add(task);
        if (page.size() > filter.limit()) {
            page.poll();
        }
    }

    /**
     * The first {@code limit} waiting tasks of a pool in line order (the order a freed slot would
     * take them in, tenants' shares aside), each with its place in its class's line (its tenant's).
     */
    public List<WaitingTask> waiting(String pool, int limit) {
        record Entry(String classKey, Place order, String taskId, long place) {}
        Comparator<Entry> lineOrder = Comparator.comparing(Entry::order);
        PriorityQueue<Entry> first = new PriorityQueue<>(lineOrder.reversed());
        PoolIndex index = stores.index().find(pool);
        Map<String, SpillingMap<Place, String>> lines = index == null ? Map.of() : index.lines();
        lines.forEach((classKey, line) -> {
            long place = 0;
            // The first `limit` of the pool are among the first `limit` of each line.
            for (Map.Entry<Place, String> e : line.entries()) {
                if (++place > limit) {
                    break;
                }
                first.add(new Entry(classKey, e.getKey(), e.getValue(), place));
                if (first.size() > limit) {
                    first.poll();
                }
            }
        });
        List<Entry> entries = new ArrayList<>(first);
        entries.sort(lineOrder);
        List<WaitingTask> result = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            TaskRecord task = StoreNames.task(stores.tasks(), pool, e.taskId());
            if (task != null && task.getState() == TaskState.WAITING) {
                result.add(new WaitingTask(task, LineKeys.requirementKey(e.classKey()), e.place()));
            }
        }
        return result;
    }

    /** The workers of a pool, or of every pool when {@code pool} is {@code null}, sorted by pool then id. */
    public List<WorkerRecord> workers(String pool) {
        List<WorkerRecord> result = new ArrayList<>();
        try (KeyValueIterator<String, WorkerRecord> it = pool == null ? stores.workers().all()
                : stores.workers().prefixScan(StoreNames.workerPrefix(pool), KEYS)) {
            it.forEachRemaining(kv -> result.add(kv.value));
        }
        result.sort(Comparator.comparing(WorkerRecord::getPool).thenComparing(WorkerRecord::getWorkerId));
        return result;
    }

    /** Every registration of a worker id, one per pool it ever joined (usually one). */
    public List<WorkerRecord> workersWithId(String workerId) {
        List<WorkerRecord> result = new ArrayList<>();
        for (WorkerRecord w : workers(null)) {
            if (w.getWorkerId().equals(workerId)) {
                result.add(w);
            }
        }
        return result;
    }

    private static Instant earlier(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        return b == null || !b.isBefore(a) ? a : b;
    }
}
