package io.cronoq.gateway;

import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot.QuotaUse;
import io.cronoq.scheduler.policy.SharingSnapshot.TenantShare;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-tenant and per-quota gauges of the pools this instance owns, refreshed at each scrape as
 * {@link PoolGauges} are: what each tenant holds, its weight and fair share, what waits and for how
 * long (labels {@code pool}, {@code tenant}), and per quota its guarantee, its bound and what the
 * tenant holds in its scope (labels {@code pool}, {@code tenant}, {@code scope}: the quota's label key
 * such as {@code gpu=a100}, or {@code pool} for the whole pool). A quota without a bound has no
 * {@code cronoq_tenant_quota_max_slots} row. Scrape every instance and sum: each exports only its pools.
 */
final class TenantGauges {

    private final GaugeFamily<TenantShare> tenant;
    private final GaugeFamily<QuotaUse> quota;
    private Instant now = Instant.EPOCH;

    TenantGauges(MeterRegistry registry) {
        tenant = new GaugeFamily<TenantShare>(registry)
                .gaugeOrNone("cronoq.tenant.slots.in.use", "Slots the tenant's attempts hold",
                        s -> (double) s.slotsInUse())
                .gaugeOrNone("cronoq.tenant.gpus.in.use", "GPUs the tenant's attempts asked for",
                        s -> (double) s.gpusInUse())
                .gaugeOrNone("cronoq.tenant.fair.share.slots", "Slots the tenant's weight entitles it to among the "
                        + "tenants that hold or wait", TenantShare::fairShare)
                .gaugeOrNone("cronoq.tenant.dominant.share", "The tenant's larger part of the pool's slots or GPUs, "
                        + "divided by its weight", TenantShare::dominantShare)
                .gaugeOrNone("cronoq.tenant.weight", "The tenant's weight in the fair share", TenantShare::weight)
                .gaugeOrNone("cronoq.tenant.waiting.tasks", "The tenant's tasks in line", s -> (double) s.waiting())
                .gaugeOrNone("cronoq.tenant.oldest.wait.seconds", "How long the tenant's longest-waiting "
                        + "first-in-line task has waited (0 when none waits)",
                        s -> GaugeFamily.secondsSince(s.oldestWaitingSince(), now));
        quota = new GaugeFamily<QuotaUse>(registry)
                .gaugeOrNone("cronoq.tenant.quota.guaranteed.slots", "Slots of the scope the tenant gets first",
                        q -> (double) q.guaranteed())
                .gaugeOrNone("cronoq.tenant.quota.max.slots", "Slots of the scope the tenant may hold at most",
                        q -> q.max() == null ? null : (double) q.max())
                .gaugeOrNone("cronoq.tenant.quota.in.use.slots", "Slots of the scope the tenant holds",
                        q -> (double) q.inUse());
    }

    /** Replaces every row with these pools' tenants and quotas (those that are gone disappear). */
    void update(List<SharingSnapshot> pools, Instant now) {
        this.now = now;
        List<GaugeFamily.Row<TenantShare>> tenants = new ArrayList<>();
        List<GaugeFamily.Row<QuotaUse>> quotas = new ArrayList<>();
        for (SharingSnapshot pool : pools) {
            for (TenantShare t : pool.tenants()) {
                tenants.add(new GaugeFamily.Row<>(Tags.of("pool", pool.pool(), "tenant", t.tenant()), t));
                for (QuotaUse q : t.quotas()) {
                    quotas.add(new GaugeFamily.Row<>(Tags.of("pool", pool.pool(), "tenant", t.tenant(),
                            "scope", TenantView.QuotaView.scope(q.labels())), q));
                }
            }
        }
        tenant.update(tenants);
        quota.update(quotas);
    }
}
