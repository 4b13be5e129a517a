package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskFilter;
import java.util.List;
import java.util.Optional;

/**
 * The read-only state the gateway serves: the scheduler's stores, as views. Implementations answer
 * from this instance's stores only ({@link LocalStateReader}) or from the whole cluster
 * ({@link ClusterStateReader}); either throws {@link ApiException} {@code UNAVAILABLE} while the
 * state cannot be read completely (restoring, rebalancing, a peer not answering).
 */
public interface StateReader {

    /** Every pool, sorted by name, each listing as many keys and classes as {@code caps} says. */
    SnapshotView snapshot(ListCaps caps);

    /** One pool, or empty when no instance knows it. */
    Optional<PoolView> pool(String pool, ListCaps caps);

    /** How every pool is shared between tenants, sorted by pool. */
    TenantsView tenants();

    /** How one pool is shared between tenants, or empty when no instance knows the pool. */
    Optional<SharingView> sharing(String pool);

    /** The concurrency keys and rate limits of every pool, sorted by pool, each with at most {@code caps.keys()} keys. */
    LimitsView limits(ListCaps caps);

    /** The concurrency keys and rate limits of one pool, or empty when no instance knows the pool. */
    Optional<PoolLimitsView> limits(String pool, ListCaps caps);

    /**
     * When one pool's backlog clears, from its last forecast, listing the first {@code limit} tasks to start;
     * empty when no instance knows the pool.
     */
    Optional<ForecastView> forecast(String pool, int limit);

    /** A task by id; {@code pool}, when given, routes straight to the pool's owner. */
    Optional<TaskView> task(String id, String pool);

    /** A page of tasks, newest first. */
    TaskPage tasks(TaskFilter filter);

    /** The workers of a pool, or of every pool when {@code pool} is {@code null}. */
    List<WorkerView> workers(String pool);

    /** Whether the state can be read now, and if not, why. */
    Readiness readiness();

    /**
     * Whether an instance can answer.
     *
     * @param ready  whether the stores are queryable
     * @param state  the Kafka Streams state, e.g. {@code RUNNING}
     * @param reason why not, or {@code null} when ready
     */
    record Readiness(boolean ready, String state, String reason) {}
}
