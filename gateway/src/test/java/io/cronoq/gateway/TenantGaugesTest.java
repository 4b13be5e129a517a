package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.policy.SharingSnapshot;
import io.cronoq.scheduler.policy.SharingSnapshot.QuotaUse;
import io.cronoq.scheduler.policy.SharingSnapshot.TenantShare;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The tenant and quota gauges, as a Prometheus scrape shows them after the pools' sharing is read. */
class TenantGaugesTest {

    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final TenantGauges gauges = new TenantGauges(registry);

    private static final SharingSnapshot GPU = new SharingSnapshot("gpu", true, 30_000, 8, 4, List.of(
            new TenantShare("default", 1, 2, 0, 2, 0.25, 3, NOW.minusSeconds(90), List.of()),
            new TenantShare("research", 3, 6, 4, 6, 1.0 / 3, 0, null, List.of(
                    new QuotaUse(Map.of("gpu", "a100", "zone", "eu"), 4, 16, 4),
                    new QuotaUse(Map.of(), 1, null, 6)))));

    @Test
    void eachTenantOfEachPoolHasItsFiguresTaggedByPoolAndTenant() {
        gauges.update(List.of(GPU), NOW);
        String scrape = registry.scrape();

        assertThat(value(scrape, "cronoq_tenant_slots_in_use", "pool=\"gpu\",tenant=\"research\"")).isEqualTo(6.0);
        assertThat(value(scrape, "cronoq_tenant_slots_in_use", "pool=\"gpu\",tenant=\"default\"")).isEqualTo(2.0);
        assertThat(value(scrape, "cronoq_tenant_gpus_in_use", "pool=\"gpu\",tenant=\"research\"")).isEqualTo(4.0);
        assertThat(value(scrape, "cronoq_tenant_fair_share_slots", "pool=\"gpu\",tenant=\"research\"")).isEqualTo(6.0);
        assertThat(value(scrape, "cronoq_tenant_dominant_share", "pool=\"gpu\",tenant=\"default\"")).isEqualTo(0.25);
        assertThat(value(scrape, "cronoq_tenant_weight", "pool=\"gpu\",tenant=\"research\"")).isEqualTo(3.0);
        assertThat(value(scrape, "cronoq_tenant_waiting_tasks", "pool=\"gpu\",tenant=\"default\"")).isEqualTo(3.0);
        assertThat(value(scrape, "cronoq_tenant_oldest_wait_seconds", "pool=\"gpu\",tenant=\"default\""))
                .isEqualTo(90.0);
        assertThat(value(scrape, "cronoq_tenant_oldest_wait_seconds", "pool=\"gpu\",tenant=\"research\""))
                .as("nothing of it waits").isEqualTo(0.0);
    }

    @Test
    void eachQuotaHasItsGuaranteeBoundAndUseTaggedByItsScope() {
        gauges.update(List.of(GPU), NOW);
        String scrape = registry.scrape();
        String gpu = "pool=\"gpu\",scope=\"gpu=a100,zone=eu\",tenant=\"research\"";
        String pool = "pool=\"gpu\",scope=\"pool\",tenant=\"research\"";

        assertThat(value(scrape, "cronoq_tenant_quota_guaranteed_slots", gpu)).isEqualTo(4.0);
        assertThat(value(scrape, "cronoq_tenant_quota_max_slots", gpu)).isEqualTo(16.0);
        assertThat(value(scrape, "cronoq_tenant_quota_in_use_slots", gpu)).isEqualTo(4.0);
        assertThat(value(scrape, "cronoq_tenant_quota_guaranteed_slots", pool)).isEqualTo(1.0);
        assertThat(value(scrape, "cronoq_tenant_quota_in_use_slots", pool)).isEqualTo(6.0);
        assertThat(value(scrape, "cronoq_tenant_quota_max_slots", pool)).as("no bound, no row").isNull();
    }

    @Test
    void aPoolThatIsGoneLeavesNoRows() {
        gauges.update(List.of(GPU), NOW);
        gauges.update(List.of(), NOW);

        assertThat(registry.scrape()).doesNotContain("tenant=\"research\"");
    }

    /** The value of one Prometheus sample, or null when absent. */
    private static Double value(String scrape, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{" + Pattern.quote(labels) + "\\} ([0-9.eE+-]+)$")
                .matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }
}
