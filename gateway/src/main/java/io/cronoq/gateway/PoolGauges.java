package io.cronoq.gateway;

import io.cronoq.scheduler.query.PoolState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Per-pool and per-group gauges of the pools this instance owns, refreshed at each scrape: capacity,
 * busy, waiting, oldest waiting age, demand, the tasks limits hold back. The pool and the group (its canonical label key,
 * {@code gpu=a100,zone=eu}) are Prometheus labels; worker label names are not, because Prometheus
 * needs one label set per metric and label names like {@code topology.kubernetes.io/zone} are not
 * legal label names. Scrape every instance and sum: each exports only the pools it owns.
 */
final class PoolGauges {

    private final List<Metric<PoolState>> pool = new ArrayList<>();
    private final List<Metric<PoolState.GroupState>> group = new ArrayList<>();
    private Instant now = Instant.EPOCH;

    private record Metric<T>(MultiGauge gauge, ToDoubleFunction<T> value) {}

    PoolGauges(MeterRegistry registry) {
        pool(registry, "cronoq.pool.capacity", "Slots of the pool's ACTIVE workers", null, s -> s.snapshot().capacity());
        pool(registry, "cronoq.pool.busy", "Attempts on the pool's ACTIVE workers", null, s -> s.snapshot().busy());
        pool(registry, "cronoq.pool.waiting", "Tasks waiting in the pool", null, s -> s.snapshot().waiting());
        pool(registry, "cronoq.pool.demand", "Busy slots plus waiting tasks some group can serve", null, PoolState::demand);
        pool(registry, "cronoq.pool.unservable", "Waiting tasks whose labels no group carries", null, PoolState::unservable);
        pool(registry, "cronoq.pool.held.by.limits", "Waiting tasks a concurrency key or rate limit holds back", null,
                PoolState::heldByLimits);
        pool(registry, "cronoq.pool.draining.busy", "Attempts finishing on DRAINING workers", null,
                s -> s.snapshot().drainingBusy());
        pool(registry, "cronoq.pool.oldest.waiting", "Age of the longest-waiting head of a line", "seconds",
                s -> age(s.oldestWaitingSince()));
        group(registry, "cronoq.group.capacity", "Slots of the group's ACTIVE workers", null, g -> g.snapshot().capacity());
        group(registry, "cronoq.group.busy", "Attempts on the group's ACTIVE workers", null, g -> g.snapshot().busy());
        group(registry, "cronoq.group.workers", "ACTIVE workers of the group", null, g -> g.snapshot().workers());
        group(registry, "cronoq.group.waiting", "Waiting tasks the group could serve", null, g -> g.snapshot().waiting());
        group(registry, "cronoq.group.demand", "Busy slots plus waiting tasks the group could serve", null,
                PoolState.GroupState::demand);
        group(registry, "cronoq.group.oldest.waiting", "Age of the oldest wait the group could serve", "seconds",
                g -> age(g.oldestWaitingSince()));
    }

    private void pool(MeterRegistry registry, String name, String doc, String unit, ToDoubleFunction<PoolState> value) {
        pool.add(new Metric<>(MultiGauge.builder(name).description(doc).baseUnit(unit).register(registry), value));
    }

    private void group(MeterRegistry registry, String name, String doc, String unit,
                       ToDoubleFunction<PoolState.GroupState> value) {
        group.add(new Metric<>(MultiGauge.builder(name).description(doc).baseUnit(unit).register(registry), value));
    }

    private double age(Instant since) {
        return since == null ? 0 : Math.max(0, Duration.between(since, now).toMillis() / 1000.0);
    }

    /** Replaces every row with these pools' figures (pools and groups that are gone disappear). */
    void update(List<PoolState> states, Instant now) {
        this.now = now;
        for (Metric<PoolState> m : pool) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (PoolState s : states) {
                rows.add(MultiGauge.Row.of(Tags.of("pool", s.pool()), m.value().applyAsDouble(s)));
            }
            m.gauge().register(rows, true);
        }
        for (Metric<PoolState.GroupState> m : group) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (PoolState s : states) {
                for (PoolState.GroupState g : s.groups()) {
                    rows.add(MultiGauge.Row.of(Tags.of("pool", s.pool(), "group", g.key()), m.value().applyAsDouble(g)));
                }
            }
            m.gauge().register(rows, true);
        }
    }
}
