package io.cronoq.gateway;

import io.cronoq.scheduler.query.PoolState;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The gateway's Prometheus registry: pool and group gauges ({@link PoolGauges}), tenant and quota
 * gauges ({@link TenantGauges}) and concurrency key and rate limit gauges ({@link LimitGauges}),
 * refreshed at each scrape from this instance's stores;
 * journal-derived counters ({@link JournalMeter}, fed by the gateway's {@link JournalFeed}) and the
 * Kafka Streams client metrics ({@link KafkaStreamsMetrics}).
 */
final class GatewayMetrics implements MetricsSource, AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final PoolGauges gauges = new PoolGauges(registry);
    private final TenantGauges tenants = new TenantGauges(registry);
    private final LimitGauges limits = new LimitGauges(registry);
    private final LocalStateReader local;
    private final Clock clock;
    private final KafkaStreamsMetrics streamsMetrics;

    GatewayMetrics(KafkaStreams streams, LocalStateReader local, Clock clock) {
        this.local = local;
        this.clock = clock;
        this.streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(registry);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * {@code cronoq_unserved_partitions}: input partitions whose pools this instance can neither
     * schedule nor answer for now (no active owner, or one it cannot forward to); -1 when unknown.
     * Alert when it stays above 0.
     */
    void unserved(java.util.function.IntSupplier partitions) {
        io.micrometer.core.instrument.Gauge.builder("cronoq_unserved_partitions", partitions::getAsInt)
                .description("Input partitions (and so pools) without an owner this instance can serve from")
                .register(registry);
    }

    @Override
    public synchronized String scrape() {
        Instant now = clock.instant();
        try {
            List<PoolState> pools = local.poolStates();
            gauges.update(pools, now);
            tenants.update(local.sharingStates(), now);
            limits.update(pools.stream().map(PoolState::limits).filter(Objects::nonNull).toList());
        } catch (ApiException | InvalidStateStoreException e) {
            // not readable now: no pool figures rather than stale ones
            gauges.update(List.of(), now);
            tenants.update(List.of(), now);
            limits.update(List.of());
        }
        return registry.scrape();
    }

    @Override
    public void close() {
        streamsMetrics.close();
        registry.close();
    }
}
