package io.cronoq.gateway;

import io.cronoq.scheduler.query.TaskFilter;
import java.util.List;
import java.util.Optional;

/** A state reader for gateways under test that must not read: every read fails, readiness says why. */
final class NoState implements StateReader {

    @Override
    public SnapshotView snapshot(ListCaps caps) {
        throw unreadable();
    }

    @Override
    public Optional<PoolView> pool(String pool, ListCaps caps) {
        throw unreadable();
    }

    @Override
    public LimitsView limits(ListCaps caps) {
        throw unreadable();
    }

    @Override
    public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
        throw unreadable();
    }

    @Override
    public TenantsView tenants() {
        throw unreadable();
    }

    @Override
    public Optional<SharingView> sharing(String pool) {
        throw unreadable();
    }

    @Override
    public Optional<ForecastView> forecast(String pool, int limit) {
        throw unreadable();
    }

    @Override
    public Optional<TaskView> task(String id, String pool) {
        throw unreadable();
    }

    @Override
    public TaskPage tasks(TaskFilter filter) {
        throw unreadable();
    }

    @Override
    public List<WorkerView> workers(String pool) {
        throw unreadable();
    }

    @Override
    public Readiness readiness() {
        return new Readiness(false, "CREATED", "this test gateway reads no state");
    }

    private static ApiException unreadable() {
        return ApiException.unavailable("this test gateway reads no state", null);
    }
}
