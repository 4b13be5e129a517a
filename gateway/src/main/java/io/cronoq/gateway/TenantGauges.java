package io.cronoq.gateway;

import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot.QuotaUse;
import io.cronoq.scheduler.policy.SharingSnapshot.TenantShare;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Per-tenant and per-quota gauges of the pools this instance owns, refreshed at each scrape as
 * {@link PoolGauges} are: what each tenant holds, its weight and fair share, what waits and for how
 * long (labels {@code pool}, {@code tenant}), and per quota its guarantee, its bound and what the
 * tenant holds in its scope (labels {@code pool}, {@code tenant}, {@code scope}: the quota's label key
 * such as {@code gpu=a100}, or {@code pool} for the whole pool). A quota without a bound has no
 * {@code cronoq_tenant_quota_max_slots} row. Scrape every instance and sum: each exports only its pools.
 */
final class TenantGauges {

    private final List<Metric<TenantShare>> tenant = new ArrayList<>();
    private final List<Metric<QuotaUse>> quota = new ArrayList<>();
    private Instant now = Instant.EPOCH;

    /** A gauge and its value per row; a row whose value is {@code null} is left out. */
    private record Metric<T>(MultiGauge gauge, Function<T, Double> value) {}

    TenantGauges(MeterRegistry registry) {
        tenant(registry, "cronoq.tenant.slots.in.use", "Slots the tenant's attempts hold", s -> (double) s.slotsInUse());
        tenant(registry, "cronoq.tenant.gpus.in.use", "GPUs the tenant's attempts asked for", s -> (double) s.gpusInUse());
        tenant(registry, "cronoq.tenant.fair.share.slots", "Slots the tenant's weight entitles it to among the "
                + "tenants that hold or wait", TenantShare::fairShare);
        tenant(registry, "cronoq.tenant.dominant.share", "The tenant's larger part of the pool's slots or GPUs, "
                + "divided by its weight", TenantShare::dominantShare);
        tenant(registry, "cronoq.tenant.weight", "The tenant's weight in the fair share", TenantShare::weight);
        tenant(registry, "cronoq.tenant.waiting.tasks", "The tenant's tasks in line", s -> (double) s.waiting());
        tenant(registry, "cronoq.tenant.oldest.wait.seconds", "How long the tenant's longest-waiting first-in-line "
                + "task has waited (0 when none waits)", s -> age(s.oldestWaitingSince()));
        quota(registry, "cronoq.tenant.quota.guaranteed.slots", "Slots of the scope the tenant gets first",
                q -> (double) q.guaranteed());
        quota(registry, "cronoq.tenant.quota.max.slots", "Slots of the scope the tenant may hold at most",
                q -> q.max() == null ? null : (double) q.max());
        quota(registry, "cronoq.tenant.quota.in.use.slots", "Slots of the scope the tenant holds",
                q -> (double) q.inUse());
    }

    private void tenant(MeterRegistry registry, String name, String doc, Function<TenantShare, Double> value) {
        tenant.add(new Metric<>(MultiGauge.builder(name).description(doc).register(registry), value));
    }

    private void quota(MeterRegistry registry, String name, String doc, Function<QuotaUse, Double> value) {
        quota.add(new Metric<>(MultiGauge.builder(name).description(doc).register(registry), value));
    }

    private double age(Instant since) {
        return since == null ? 0 : Math.max(0, Duration.between(since, now).toMillis() / 1000.0);
    }

    /** Replaces every row with these pools' tenants and quotas (those that are gone disappear). */
    void update(List<SharingSnapshot> pools, Instant now) {
        this.now = now;
        for (Metric<TenantShare> m : tenant) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (SharingSnapshot pool : pools) {
                for (TenantShare t : pool.tenants()) {
                    rows.add(MultiGauge.Row.of(Tags.of("pool", pool.pool(), "tenant", t.tenant()), m.value().apply(t)));
                }
            }
            m.gauge().register(rows, true);
        }
        for (Metric<QuotaUse> m : quota) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (SharingSnapshot pool : pools) {
                for (TenantShare t : pool.tenants()) {
                    for (QuotaUse q : t.quotas()) {
                        Double value = m.value().apply(q);
                        if (value != null) {
                            rows.add(MultiGauge.Row.of(Tags.of("pool", pool.pool(), "tenant", t.tenant(),
                                    "scope", TenantView.QuotaView.scope(q.labels())), value));
                        }
                    }
                }
            }
            m.gauge().register(rows, true);
        }
    }
}
