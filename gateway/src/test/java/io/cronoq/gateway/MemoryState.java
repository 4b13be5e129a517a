package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskFilter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A state reader over views a test puts in, for gateways under test with no broker: it answers as the
 * scheduler's stores would (pools sorted by name, tasks newest first as put in, workers by pool then id).
 */
final class MemoryState implements StateReader {

    private final List<PoolView> pools = new ArrayList<>();
    private final List<TaskView> tasks = new ArrayList<>();
    private final List<WorkerView> workers = new ArrayList<>();
    private final List<SharingView> sharing = new ArrayList<>();
    private final List<PoolLimitsView> limits = new ArrayList<>();
    private final String at;

    /** An empty state whose snapshots are as of {@code at}. */
    MemoryState(String at) {
        this.at = at;
    }

    private final List<ForecastView> forecasts = new ArrayList<>();

    /** Adds a pool's forecast, answered as it is whatever the limit. */
    MemoryState forecast(ForecastView forecast) {
        forecasts.add(forecast);
        return this;
    }

    @Override
    public Optional<ForecastView> forecast(String pool, int limit) {
        return forecasts.stream().filter(f -> f.pool().equals(pool)).findFirst();
    }

    MemoryState pool(PoolView pool) {
        pools.add(pool);
        return this;
    }

    /** Adds a task; tasks are listed in the order they were added (the newest first). */
    MemoryState task(TaskView task) {
        tasks.add(task);
        return this;
    }

    MemoryState worker(WorkerView worker) {
        workers.add(worker);
        return this;
    }

    /** Adds how a pool is shared; {@code /v1/tenants} answers these, by pool. */
    MemoryState sharing(SharingView pool) {
        sharing.add(pool);
        return this;
    }

    /** Adds a pool's limits; {@code /v1/limits} answers these, by pool, each with at most the caps' keys. */
    MemoryState limits(PoolLimitsView pool) {
        limits.add(pool);
        return this;
    }

    /** The caps of the last read that named them: what the route asked the state for. */
    ListCaps lastCaps;

    @Override
    public SnapshotView snapshot(ListCaps caps) {
        lastCaps = caps;
        return new SnapshotView(at, pools.stream().sorted(Comparator.comparing(PoolView::pool)).toList());
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        lastCaps = caps;
        return pools.stream().filter(p -> p.pool().equals(pool)).findFirst();
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        lastCaps = caps;
        return new LimitsView(at, limits.stream().sorted(Comparator.comparing(PoolLimitsView::pool))
                .map(p -> capped(p, caps)).toList());
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        lastCaps = caps;
        return limits.stream().filter(p -> p.pool().equals(pool)).findFirst().map(p -> capped(p, caps));
    }

    private static PoolLimitsView capped(PoolLimitsView p, ListCaps caps) {
        return new PoolLimitsView(p.pool(), p.keysTotal(), p.keysInUse(), p.keysAtLimit(), p.heldBackByKeys(),
                p.heldBackByRates(), p.keys().stream().limit(caps.keys()).toList(), p.rates());
    }

    @Override
    public TenantsView tenants() {
        return new TenantsView(at, sharing.stream().sorted(Comparator.comparing(SharingView::pool)).toList());
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        return sharing.stream().filter(p -> p.pool().equals(pool)).findFirst();
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        return tasks.stream().filter(t -> t.id().equals(id) && (pool == null || t.pool().equals(pool))).findFirst();
    }

    /** The page; its {@code next} is the last task's id when more tasks follow (a stand-in for a cursor). */
    @Override
    public TaskPage tasks(TaskFilter filter) {
        List<TaskView> matching = tasks.stream()
                .filter(t -> filter.pool() == null || t.pool().equals(filter.pool()))
                .filter(t -> filter.state() == null || t.state().equals(filter.state().name()))
                .filter(t -> filter.workflow() == null || filter.workflow().equals(t.workflow()))
                .toList();
        List<TaskView> page = matching.stream().limit(filter.limit()).toList();
        return new TaskPage(page, matching.size() > page.size() ? page.get(page.size() - 1).id() : null);
    }

    @Override
    public List<WorkerView> workers(String pool) {
        return workers.stream().filter(w -> pool == null || w.pool().equals(pool))
                .sorted(Comparator.comparing(WorkerView::pool).thenComparing(WorkerView::id)).toList();
    }

    @Override
    public Readiness readiness() {
        return new Readiness(true, "RUNNING", null);
    }

    /** A task with labels and, when {@code worker} is given, one attempt on it; other fields unset. */
    static TaskView task(String id, String pool, String state, Map<String, String> labels, String worker) {
        List<TaskView.AttemptView> attempts = worker == null ? List.of() : List.of(new TaskView.AttemptView(1, worker,
                labels, 3, "2026-06-01T11:59:00Z", "2026-06-01T11:59:01Z", null, null, null));
        return new TaskView(id, pool, state, labels, null, "NORMAL", 5, null, "default", "2026-06-01T11:58:00Z",
                "2026-06-01T11:59:01Z", null, null, null, null, null, null, null, null, List.of(), List.of(), List.of(),
                null, attempts, null);
    }

    /** Task {@code name} of workflow {@code workflow} ({@code <workflow>:<name>}), waiting for these parents of it. */
    static TaskView inWorkflow(String workflow, String name, String pool, String state, String... parents) {
        TaskView plain = task(workflow + ":" + name, pool, state, Map.of(), null);
        List<TaskView.ParentView> after = new java.util.ArrayList<>();
        for (String parent : parents) {
            // "name?failed" waits for the parent to fail
            String[] p = parent.split("\\?");
            after.add(new TaskView.ParentView(workflow + ":" + p[0], pool, p.length > 1 ? p[1] : "succeeded"));
        }
        return new TaskView(plain.id(), pool, state, Map.of(), null, "NORMAL", 5, null, "default",
                "2026-06-01T11:58:00Z", "2026-06-01T11:59:01Z", null, null, null, null, null, null, null, null, List.of(),
                List.of(), List.of(), null, List.of(), null, after, after.isEmpty() ? null : "cancel",
                state.equals("BLOCKED") ? after.size() : null, workflow, null, null);
    }

    /**
     * Member {@code rank} of gang {@code gangId} of {@code size} members, as the scheduler keeps it: task id
     * {@code <gangId>-<rank>}, its place in the gang, one attempt on {@code worker} when given, and {@code reason} as
     * its waiting reason while {@code WAITING}.
     */
    static TaskView member(String gangId, int rank, int size, String pool, String state, String worker, String reason) {
        TaskView plain = task(gangId + "-" + rank, pool, state, Map.of(), worker);
        TaskView.WaitingView waiting = state.equals("WAITING")
                ? new TaskView.WaitingView(reason, "2026-06-01T11:58:00Z", 120_000L) : null;
        return new TaskView(plain.id(), pool, state, Map.of(), null, "NORMAL", 5, "ci", "research",
                plain.submittedAt(), plain.updatedAt(), null, null, null, null, null, null, null, null, List.of(),
                List.of(), List.of(), waiting, plain.attempts(),
                new TaskView.GangView(gangId, size, rank, "SPREAD", "rack"));
    }

    /** A worker running {@code running} attempts (each the first of its task). */
    static WorkerView worker(String id, String pool, String state, int slots, long generation, String... running) {
        List<WorkerView.RunningView> attempts = new ArrayList<>();
        for (String task : running) {
            attempts.add(new WorkerView.RunningView(task, 1));
        }
        return new WorkerView(id, pool, Map.of(), slots, attempts.size(), state, generation, null,
                "2026-06-01T11:00:00Z", "2026-06-01T11:59:59Z", attempts);
    }

    /** A pool of one group without labels, its busy slots and waiting tasks the tenant {@code default}'s. */
    static PoolView pool(String name, int capacity, int busy, long waiting) {
        List<TenantView> tenants = busy + waiting == 0 ? List.of() : List.of(new TenantView("default", 1, busy, 0,
                capacity, (double) busy / Math.max(1, capacity), waiting, waiting > 0 ? "2026-06-01T11:59:58Z" : null,
                waiting > 0 ? 1000L : null, List.of()));
        List<PoolView.ClassView> classes = waiting == 0 ? List.of() : List.of(new PoolView.ClassView("", "default",
                waiting, "head", 1000L, 1, null, false));
        return new PoolView(name, capacity, busy, waiting, waiting > 0 ? 1000L : null, busy + waiting, 0, 0, 0,
                List.of(new PoolView.GroupView(Map.of(), "", capacity, busy, 1, waiting, waiting > 0 ? 1000L : null,
                        busy + waiting, 0)), tenants,
                new PoolLimitsView(null, 0, 0, 0, 0, 0, List.of(), List.of()), classes.size(), classes);
    }
}
