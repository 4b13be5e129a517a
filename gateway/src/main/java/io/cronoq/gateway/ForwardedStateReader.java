package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskFilter;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.streams.state.HostInfo;

/**
 * What an instance answers to a peer's forwarded request: its own stores only. A pool it no
 * longer owns (it moved between the peer's lookup and this answer) is UNAVAILABLE, not "not found".
 */
final class ForwardedStateReader implements StateReader {

    private final LocalStateReader local;
    private final Ownership ownership;
    private final Predicate<HostInfo> peerAnswers;

    /** @param peerAnswers whether a peer instance's process answers (readiness counts a dead owner's pools unserved) */
    ForwardedStateReader(LocalStateReader local, Ownership ownership, Predicate<HostInfo> peerAnswers) {
        this.local = local;
        this.ownership = ownership;
        this.peerAnswers = peerAnswers;
    }

    @Override
    public SnapshotView snapshot(ListCaps caps) {
        return local.snapshot(caps);
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        return checkedMiss(local.pool(pool, caps), pool);
    }

    @Override
    public TenantsView tenants() {
        return local.tenants();
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        return checkedMiss(local.sharing(pool), pool);
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        return local.limits(caps);
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        return checkedMiss(local.limits(pool, caps), pool);
    }

    @Override
    public Optional<ForecastView> forecast(String pool, int limit) {
        return checkedMiss(local.forecast(pool, limit), pool);
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

    /**
     * Ready when this instance can serve every pool: Kafka Streams RUNNING, its stores queryable,
     * and every input partition owned by an instance it can reach (itself, or a peer it forwards to).
     */
    @Override
    public Readiness readiness() {
        Readiness own = local.readiness();
        if (!own.ready()) {
            return own;
        }
        int unserved;
        try {
            unserved = ownership.unservedPartitions(peerAnswers);
        } catch (RuntimeException e) {
            return new Readiness(false, own.state(), "the owners of the input partitions are not known: " + e);
        }
        if (unserved > 0) {
            return new Readiness(false, own.state(), unserved + " input partition(s) have no owner this instance "
                    + "can serve from" + (ownership.forwarding() ? " (the scheduler instances are rebalancing)"
                    : " (set cronoq.application.server on every instance so it can forward to the others)")
                    + ": their pools are neither scheduled nor answered");
        }
        return own;
    }

    /** Input partitions whose pools this instance cannot serve now (a gauge: {@code cronoq_unserved_partitions}). */
    int unservedPartitions() {
        try {
            return ownership.unservedPartitions(peerAnswers);
        } catch (RuntimeException e) {
            return -1;
        }
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
