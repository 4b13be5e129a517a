package io.cronoq.gateway;

import io.cronoq.events.TaskRecord;
import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.query.PoolState;
import io.cronoq.scheduler.query.SchedulerQueries;
import io.cronoq.scheduler.query.ReadOnlyStores;
import io.cronoq.scheduler.query.TaskCursor;
import io.cronoq.scheduler.query.TaskFilter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The state held by this scheduler instance: the stores of the input partitions it runs as active
 * tasks (standby copies are never read, so an answer is never stale by a failover). Pools owned by
 * other instances are simply absent; {@link ClusterStateReader} adds them.
 */
record LocalStateReader(KafkaStreams streams, String inputTopic, Clock clock, Forecasts forecasts)
        implements StateReader {

    /** How {@link Forecasts} makes a forecast of the pool: from the first local partition that holds it. */
    private Forecasts.Maker maker(String pool) {
        return (forecaster, runTimes, now) -> onePool(q -> q.forecast(pool, forecaster, runTimes, now));
    }

    /** The input partitions this instance runs as active tasks, ascending. */
    TreeSet<Integer> ownedPartitions() {
        requireRunning();
        TreeSet<Integer> owned = new TreeSet<>();
        streams.metadataForLocalThreads().forEach(thread -> thread.activeTasks().forEach(task ->
                task.topicPartitions().forEach(tp -> {
                    if (tp.topic().equals(inputTopic)) {
                        owned.add(tp.partition());
                    }
                })));
        return owned;
    }

    /** Throws UNAVAILABLE unless Kafka Streams runs (not starting, rebalancing or stopping). */
    void requireRunning() {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            throw ApiException.unavailable("the scheduler is " + state + ", not RUNNING; its stores cannot be "
                    + "read until it is", null);
        }
    }

    private List<SchedulerQueries> queries() {
        List<SchedulerQueries> result = new ArrayList<>();
        for (int partition : ownedPartitions()) {
            try {
                result.add(new SchedulerQueries(ReadOnlyStores.partition(streams, partition)));
            } catch (InvalidStateStoreException e) {
                throw ApiException.unavailable("the stores of partition " + partition + " are not queryable ("
                        + e.getMessage() + "); they are restoring or moving", e);
            }
        }
        return result;
    }

    @Override
    public SnapshotView snapshot(ListCaps caps) {
        Instant now = clock.instant();
        List<PoolView> pools = new ArrayList<>();
        for (PoolState state : everyPool(SchedulerQueries::pool)) {
            pools.add(ViewMapper.pool(state, state.sharing(), now, caps));
        }
        pools.sort(Comparator.comparing(PoolView::pool));
        return new SnapshotView(now.toString(), pools);
    }

    @Override
    public TenantsView tenants() {
        Instant now = clock.instant();
        List<SharingView> pools = new ArrayList<>();
        for (SharingSnapshot s : sharingStates()) {
            pools.add(ViewMapper.sharing(s, now));
        }
        pools.sort(Comparator.comparing(SharingView::pool));
        return new TenantsView(now.toString(), pools);
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        Instant now = clock.instant();
        return onePool(q -> q.sharing(pool)).map(s -> ViewMapper.sharing(s, now));
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        Instant now = clock.instant();
        List<PoolLimitsView> pools = new ArrayList<>();
        for (LimitsSnapshot s : everyPool((q, pool) -> q.limits(pool, now))) {
            pools.add(ViewMapper.limits(s, caps));
        }
        pools.sort(Comparator.comparing(PoolLimitsView::pool));
        return new LimitsView(now.toString(), pools);
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        Instant now = clock.instant();
        return onePool(q -> q.limits(pool, now)).map(s -> ViewMapper.limits(s, caps));
    }

    /** How every local pool is shared between tenants, for the metrics. */
    List<SharingSnapshot> sharingStates() {
        return everyPool(SchedulerQueries::sharing);
    }

    /** The raw state of every local pool, for the metrics. */
    List<PoolState> poolStates() {
        return everyPool(SchedulerQueries::pool);
    }

    /** One kind of state of every local pool, in the partitions' order; a pool without it is left out. */
    private <S> List<S> everyPool(BiFunction<SchedulerQueries, String, Optional<S>> read) {
        List<S> states = new ArrayList<>();
        for (SchedulerQueries q : queries()) {
            for (String pool : q.pools()) {
                read.apply(q, pool).ifPresent(states::add);
            }
        }
        return states;
    }

    /** One kind of state of one pool, from the first local partition that holds it. */
    private <S> Optional<S> onePool(Function<SchedulerQueries, Optional<S>> read) {
        for (SchedulerQueries q : queries()) {
            Optional<S> found = read.apply(q);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        Instant now = clock.instant();
        return onePool(q -> q.pool(pool)).map(state -> ViewMapper.pool(state, state.sharing(), now, caps));
    }

    @Override
    public Optional<ForecastView> forecast(String pool, int limit) {
        if (queries().stream().noneMatch(q -> q.knows(pool))) {
            return Optional.empty();
        }
        io.cronoq.scheduler.policy.forecast.Forecast f = forecasts.of(pool, maker(pool));
        if (f == null) {
            throw ApiException.unavailable("the first forecast of pool " + pool + " is still being made; ask again "
                    + "in a moment", null);
        }
        return Optional.of(ForecastView.of(f, limit));
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        List<TaskView> views = new ArrayList<>();
        for (SchedulerQueries q : queries()) {
            List<TaskRecord> found = pool != null ? q.task(pool, id).map(List::of).orElse(List.of()) : q.tasksWithId(id);
            for (TaskRecord t : found) {
                TaskView view = ViewMapper.task(t, clock.instant());
                if (t.getState() == io.cronoq.events.TaskState.WAITING) {
                    view = view.withEstimate(forecasts.estimate(t.getTask().getPool(), t.getTask().getTaskId(),
                            t.getWaitingSince(), maker(t.getTask().getPool())));
                } else if (t.getState() == io.cronoq.events.TaskState.BLOCKED) {
                    view = view.withEstimate(io.cronoq.scheduler.policy.forecast.Forecast.Estimate.BLOCKED);
                }
                // A success's result, read beside the record (the list of tasks leaves it out).
                views.add(t.getState() == io.cronoq.events.TaskState.SUCCEEDED
                        ? view.withResult(q.result(t.getTask().getPool(), t.getTask().getTaskId()).orElse(null)) : view);
            }
        }
        return TaskIds.onlyOne(id, views);
    }

    @Override
    public TaskPage tasks(TaskFilter filter) {
        List<TaskRecord> all = new ArrayList<>();
        for (SchedulerQueries q : queries()) {
            all.addAll(q.tasks(filter));
        }
        all.sort(TaskCursor.NEWEST_FIRST);
        List<TaskRecord> page = all.size() > filter.limit() ? all.subList(0, filter.limit()) : all;
        Instant now = clock.instant();
        List<TaskView> views = new ArrayList<>(page.size());
        page.forEach(t -> views.add(ViewMapper.task(t, now)));
        // A full page may have a successor; a short one is the last.
        String next = page.size() == filter.limit() ? TaskCursor.at(page.get(page.size() - 1)).token() : null;
        return new TaskPage(views, next);
    }

    @Override
    public List<WorkerView> workers(String pool) {
        List<WorkerView> result = new ArrayList<>();
        for (SchedulerQueries q : queries()) {
            q.workers(pool).forEach(w -> result.add(ViewMapper.worker(w)));
        }
        result.sort(Comparator.comparing(WorkerView::pool).thenComparing(WorkerView::id));
        return result;
    }

    @Override
    public Readiness readiness() {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING) {
            return new Readiness(false, state.name(), "the scheduler is " + state + ", not RUNNING");
        }
        try {
            for (int partition : ownedPartitions()) {
                ReadOnlyStores.partition(streams, partition).tasks().approximateNumEntries();
            }
        } catch (InvalidStateStoreException | ApiException e) {
            return new Readiness(false, state.name(), "the stores are not queryable: " + e.getMessage());
        }
        return new Readiness(true, state.name(), null);
    }
}
