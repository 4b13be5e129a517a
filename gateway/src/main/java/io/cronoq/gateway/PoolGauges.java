package io.cronoq.gateway;

import io.cronoq.scheduler.query.PoolState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-pool and per-group gauges of the pools this instance owns, refreshed at each scrape: capacity,
 * busy, waiting, oldest waiting age, demand, the tasks limits hold back. The pool and the group (its canonical label key,
 * {@code gpu=a100,zone=eu}) are Prometheus labels; worker label names are not, because Prometheus
 * needs one label set per metric and label names like {@code topology.kubernetes.io/zone} are not
 * legal label names. Scrape every instance and sum: each exports only the pools it owns.
 */
final class PoolGauges {

    private final GaugeFamily<PoolState> pool;
    private final GaugeFamily<PoolState.GroupState> group;
    private Instant now = Instant.EPOCH;

    PoolGauges(MeterRegistry registry) {
        pool = new GaugeFamily<PoolState>(registry)
                .gauge("cronoq.pool.capacity", "Slots of the pool's ACTIVE workers", null, s -> s.snapshot().capacity())
                .gauge("cronoq.pool.busy", "Attempts on the pool's ACTIVE workers", null, s -> s.snapshot().busy())
                .gauge("cronoq.pool.waiting", "Tasks waiting in the pool", null, s -> s.snapshot().waiting())
                .gauge("cronoq.pool.blocked", "Tasks waiting for their parents, holding no slot", null,
                        s -> s.snapshot().blocked())
                .gauge("cronoq.pool.demand", "Busy slots plus waiting tasks some group can serve", null,
                        PoolState::demand)
                .gauge("cronoq.pool.unservable", "Waiting tasks whose labels no group carries", null,
                        PoolState::unservable)
                .gauge("cronoq.pool.held.by.limits", "Waiting tasks a concurrency key or rate limit holds back", null,
                        PoolState::heldByLimits)
                .gauge("cronoq.pool.draining.busy", "Attempts finishing on DRAINING workers", null,
                        s -> s.snapshot().drainingBusy())
                .gauge("cronoq.pool.oldest.waiting", "Age of the longest-waiting head of a line", "seconds",
                        s -> GaugeFamily.secondsSince(s.oldestWaitingSince(), now));
        group = new GaugeFamily<PoolState.GroupState>(registry)
                .gauge("cronoq.group.capacity", "Slots of the group's ACTIVE workers", null,
                        g -> g.snapshot().capacity())
                .gauge("cronoq.group.busy", "Attempts on the group's ACTIVE workers", null, g -> g.snapshot().busy())
                .gauge("cronoq.group.workers", "ACTIVE workers of the group", null, g -> g.snapshot().workers())
                .gauge("cronoq.group.waiting", "Waiting tasks the group could serve", null,
                        g -> g.snapshot().waiting())
                .gauge("cronoq.group.demand", "Busy slots plus waiting tasks the group could serve", null,
                        PoolState.GroupState::demand)
                .gauge("cronoq.group.oldest.waiting", "Age of the oldest wait the group could serve", "seconds",
                        g -> GaugeFamily.secondsSince(g.oldestWaitingSince(), now));
    }

    /** Replaces every row with these pools' figures (pools and groups that are gone disappear). */
    void update(List<PoolState> states, Instant now) {
        this.now = now;
        List<GaugeFamily.Row<PoolState>> pools = new ArrayList<>();
        List<GaugeFamily.Row<PoolState.GroupState>> groups = new ArrayList<>();
        for (PoolState s : states) {
            pools.add(new GaugeFamily.Row<>(Tags.of("pool", s.pool()), s));
            for (PoolState.GroupState g : s.groups()) {
                groups.add(new GaugeFamily.Row<>(Tags.of("pool", s.pool(), "group", g.key()), g));
            }
        }
        pool.update(pools);
        group.update(groups);
    }
}
