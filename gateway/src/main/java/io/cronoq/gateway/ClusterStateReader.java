package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskCursor;
import io.cronoq.scheduler.query.TaskFilter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
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
        List<HostInfo> others = ownership.peers();
        List<PoolView> pools = new ArrayList<>(local.snapshot(caps).pools());
        for (HostInfo peer : others) {
            pools.addAll(peers.snapshot(peer, caps).pools());
        }
        pools.sort(Comparator.comparing(PoolView::pool));
        return new SnapshotView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        Optional<HostInfo> owner = ownership.remoteOwner(pool);
        return owner.isPresent() ? peers.pool(owner.get(), pool, caps) : local.pool(pool, caps);
    }

    @Override
    public TenantsView tenants() {
        List<HostInfo> others = ownership.peers();
        List<SharingView> pools = new ArrayList<>(local.tenants().pools());
        for (HostInfo peer : others) {
            pools.addAll(peers.tenants(peer).pools());
        }
        pools.sort(Comparator.comparing(SharingView::pool));
        return new TenantsView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        Optional<HostInfo> owner = ownership.remoteOwner(pool);
        return owner.isPresent() ? peers.sharing(owner.get(), pool) : local.sharing(pool);
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        List<HostInfo> others = ownership.peers();
        List<PoolLimitsView> pools = new ArrayList<>(local.limits(caps).pools());
        for (HostInfo peer : others) {
            pools.addAll(peers.limits(peer, caps).pools());
        }
        pools.sort(Comparator.comparing(PoolLimitsView::pool));
        return new LimitsView(clock.instant().toString(), pools);
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        Optional<HostInfo> owner = ownership.remoteOwner(pool);
        return owner.isPresent() ? peers.limits(owner.get(), pool, caps) : local.limits(pool, caps);
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        if (pool != null) {
            Optional<HostInfo> owner = ownership.remoteOwner(pool);
            return owner.isPresent() ? peers.task(owner.get(), id, pool) : local.task(id, pool);
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
            Optional<HostInfo> owner = ownership.remoteOwner(filter.pool());
            return owner.isPresent() ? peers.tasks(owner.get(), filter) : local.tasks(filter);
        }
        List<HostInfo> others = ownership.peers();
        List<TaskView> merged = new ArrayList<>(local.tasks(filter).tasks());
        for (HostInfo peer : others) {
            merged.addAll(peers.tasks(peer, filter).tasks());
        }
        merged.sort(NEWEST_FIRST);
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
            Optional<HostInfo> owner = ownership.remoteOwner(pool);
            return owner.isPresent() ? peers.workers(owner.get(), pool).workers() : local.workers(pool);
        }
        List<HostInfo> others = ownership.peers();
        List<WorkerView> all = new ArrayList<>(local.workers(null));
        for (HostInfo peer : others) {
            all.addAll(peers.workers(peer, null).workers());
        }
        all.sort(Comparator.comparing(WorkerView::pool).thenComparing(WorkerView::id));
        return all;
    }

    @Override
    public Readiness readiness() {
        return local.readiness();
    }

    /** Newest first by submission time, then id descending: {@link TaskCursor#NEWEST_FIRST} on views. */
    private static final Comparator<TaskView> NEWEST_FIRST = Comparator
            .comparing((TaskView t) -> Instant.parse(t.submittedAt())).reversed()
            .thenComparing(TaskView::id, Comparator.reverseOrder());
}
