package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskCursor;
import io.cronoq.scheduler.query.TaskFilter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The state of the whole cluster as any one instance answers it: a pool's question goes to the
 * instance that owns the pool (this one reads its stores, another is asked over HTTP); a question
 * about every pool, or a task by id alone, goes to this instance and every peer, and the answers
 * are merged. An answer is complete or it is UNAVAILABLE, never silently partial.
 */
record ClusterStateReader(LocalStateReader local, Ownership ownership, PeerClient peers, Clock clock)
        implements StateReader {

    @Override
    public SnapshotView snapshot(ListCaps caps) {
        List<PoolView> pools = merged(() -> local.snapshot(caps).pools(), peer -> peers.snapshot(peer, caps).pools(),
                Comparator.comparing(PoolView::pool));
        return new SnapshotView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        return fromOwner(pool, owner -> peers.pool(owner, pool, caps), () -> local.pool(pool, caps));
    }

    @Override
    public TenantsView tenants() {
        List<SharingView> pools = merged(() -> local.tenants().pools(), peer -> peers.tenants(peer).pools(),
                Comparator.comparing(SharingView::pool));
        return new TenantsView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        return fromOwner(pool, owner -> peers.sharing(owner, pool), () -> local.sharing(pool));
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        List<PoolLimitsView> pools = merged(() -> local.limits(caps).pools(), peer -> peers.limits(peer, caps).pools(),
                Comparator.comparing(PoolLimitsView::pool));
        return new LimitsView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        return fromOwner(pool, owner -> peers.limits(owner, pool, caps), () -> local.limits(pool, caps));
    }

    @Override
    public Optional<ForecastView> forecast(String pool, int limit) {
        return fromOwner(pool, owner -> peers.forecast(owner, pool, limit), () -> local.forecast(pool, limit));
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        if (pool != null) {
            return fromOwner(pool, owner -> peers.task(owner, id, pool), () -> local.task(id, pool));
        }
        // Tasks are stored by pool and id in their pool's partition: without the pool, ask every
        // owner, and refuse an answer that would pick one of two pools' tasks.
        List<TaskView> found = new ArrayList<>();
        local.task(id, null).ifPresent(found::add);
        for (HostInfo peer : ownership.peers()) {
            peers.task(peer, id, null).ifPresent(found::add);
        }
        return TaskIds.onlyOne(id, found);
    }

    @Override
    public TaskPage tasks(TaskFilter filter) {
        if (filter.pool() != null) {
            return fromOwner(filter.pool(), owner -> peers.tasks(owner, filter), () -> local.tasks(filter));
        }
        List<TaskView> merged = merged(() -> local.tasks(filter).tasks(), peer -> peers.tasks(peer, filter).tasks(),
                NEWEST_FIRST);
        List<TaskView> page = merged.size() > filter.limit() ? merged.subList(0, filter.limit()) : merged;
        String next = null;
        if (page.size() == filter.limit()) {
            TaskView last = page.get(page.size() - 1);
            next = TaskCursor.at(Instant.parse(last.submittedAt()), last.id()).token();
        }
        return new TaskPage(List.copyOf(page), next);
    }

    @Override
    public List<WorkerView> workers(String pool) {
        if (pool != null) {
            return fromOwner(pool, owner -> peers.workers(owner, pool).workers(), () -> local.workers(pool));
        }
        return merged(() -> local.workers(null), peer -> peers.workers(peer, null).workers(),
                Comparator.comparing(WorkerView::pool).thenComparing(WorkerView::id));
    }

    @Override
    public Readiness readiness() {
        return local.readiness();
    }

    /** A pool's answer from the instance that owns it: a peer over HTTP, or this instance's stores. */
    private <T> T fromOwner(String pool, Function<HostInfo, T> remote, Supplier<T> here) {
        Optional<HostInfo> owner = ownership.remoteOwner(pool);
        return owner.isPresent() ? remote.apply(owner.get()) : here.get();
    }

    /** This instance's answer and every peer's, in one list in {@code order}; the peers are known before asking. */
    private <T> List<T> merged(Supplier<List<T>> here, Function<HostInfo, List<T>> remote, Comparator<T> order) {
        List<HostInfo> others = ownership.peers();
        List<T> all = new ArrayList<>(here.get());
        for (HostInfo peer : others) {
            all.addAll(remote.apply(peer));
        }
        all.sort(order);
        return all;
    }

    /** Newest first by submission time, then id descending: {@link TaskCursor#NEWEST_FIRST} on views. */
    private static final Comparator<TaskView> NEWEST_FIRST = Comparator
            .comparing((TaskView t) -> Instant.parse(t.submittedAt())).reversed()
            .thenComparing(TaskView::id, Comparator.reverseOrder());
}
