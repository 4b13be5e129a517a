package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskFilter;
import java.util.List;
import java.util.Optional;

/**
 * What an instance answers to a peer's forwarded request: its own stores only. A pool it no
 * longer owns (it moved between the peer's lookup and this answer) is UNAVAILABLE, not "not found".
 */
final class ForwardedStateReader implements StateReader {

    private final LocalStateReader local;
    private final Ownership ownership;

    ForwardedStateReader(LocalStateReader local, Ownership ownership) {
        this.local = local;
        this.ownership = ownership;
    }

    @Override
    public SnapshotView snapshot() {
        return local.snapshot();
    }

    @Override
    public Optional<PoolView> pool(String pool) {
        return checkedMiss(local.pool(pool), pool);
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        return checkedMiss(local.task(id, pool), pool);
    }

    @Override
    public TaskPage tasks(TaskFilter filter) {
        if (filter.pool() != null) {
            requireOwner(filter.pool());
        }
        return local.tasks(filter);
    }

    @Override
    public List<WorkerView> workers(String pool) {
        if (pool != null) {
            requireOwner(pool);
        }
        return local.workers(pool);
    }

    @Override
    public Readiness readiness() {
        return local.readiness();
    }

    private <T> Optional<T> checkedMiss(Optional<T> found, String pool) {
        if (found.isEmpty() && pool != null) {
            requireOwner(pool);
        }
        return found;
    }

    private void requireOwner(String pool) {
        if (ownership.forwarding() && ownership.remoteOwner(pool).isPresent()) {
            throw ApiException.unavailable("pool " + pool + " moved to another scheduler instance; retry", null);
        }
    }
}
