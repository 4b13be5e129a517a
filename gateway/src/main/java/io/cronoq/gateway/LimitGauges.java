package io.cronoq.gateway;

import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot.KeyUse;
import io.cronoq.scheduler.policy.LimitsSnapshot.RateUse;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Gauges of the concurrency keys and rate limits of the pools this instance owns, refreshed at each
 * scrape as {@link PoolGauges} are. Per rate limit (labels {@code pool}, {@code name}): what its bucket
 * holds, its refill and burst (no rows while it is not defined) and the tasks it holds back. Per pool
 * (label {@code pool}): the keys in use, the keys at their limit and the tasks keys hold back. Per key
 * (labels {@code pool}, {@code key}) only for the keys an admin limited: a pool may have a key per
 * customer, and a time series per key would be unbounded. Rows of limits that are gone disappear.
 */
final class LimitGauges {

    private final List<Metric<RateUse>> rate = new ArrayList<>();
    private final List<Metric<LimitsSnapshot>> pool = new ArrayList<>();
    private final List<Metric<KeyUse>> key = new ArrayList<>();

    /** A gauge and its value per row; a row whose value is {@code null} is left out. */
    private record Metric<T>(MultiGauge gauge, Function<T, Double> value) {}

    LimitGauges(MeterRegistry registry) {
        rate(registry, "cronoq.rate.limit.available", "Units in the rate limit's bucket now",
                r -> r.defined() ? r.available() : null);
        rate(registry, "cronoq.rate.limit.per.second", "Units the rate limit refills per second",
                r -> r.defined() ? r.perSecond() : null);
        rate(registry, "cronoq.rate.limit.burst", "Units the rate limit's bucket holds at most",
                r -> r.defined() ? (double) r.burst() : null);
        rate(registry, "cronoq.rate.limit.held.back", "Waiting tasks the rate limit holds back (short of units, "
                + "or not defined)", r -> (double) r.heldBack());
        pool(registry, "cronoq.concurrency.keys.in.use", "Concurrency keys that running attempts hold",
                s -> (double) s.keys().stream().filter(k -> k.running() > 0).count());
        pool(registry, "cronoq.concurrency.keys.at.limit", "Concurrency keys whose running attempts allow no other "
                + "task to start beside them", s -> (double) s.keys().stream().filter(ViewMapper::atLimit).count());
        pool(registry, "cronoq.concurrency.held.back", "Waiting tasks a concurrency key holds back",
                s -> (double) s.keys().stream().mapToLong(KeyUse::heldBack).sum());
        key(registry, "cronoq.concurrency.key.running", "Attempts holding the concurrency key (keys an admin "
                + "limited only)", k -> (double) k.running());
        key(registry, "cronoq.concurrency.key.limit", "The limit an admin set for the concurrency key in the pool",
                k -> (double) k.limit());
        key(registry, "cronoq.concurrency.key.held.back", "Waiting tasks the concurrency key holds back (keys an "
                + "admin limited only)", k -> (double) k.heldBack());
    }

    private void rate(MeterRegistry registry, String name, String doc, Function<RateUse, Double> value) {
        rate.add(new Metric<>(MultiGauge.builder(name).description(doc).register(registry), value));
    }

    private void pool(MeterRegistry registry, String name, String doc, Function<LimitsSnapshot, Double> value) {
        pool.add(new Metric<>(MultiGauge.builder(name).description(doc).register(registry), value));
    }

    private void key(MeterRegistry registry, String name, String doc, Function<KeyUse, Double> value) {
        key.add(new Metric<>(MultiGauge.builder(name).description(doc).register(registry), value));
    }

    /** Replaces every row with these pools' limits (pools, rate limits and limited keys that are gone disappear). */
    void update(List<LimitsSnapshot> pools) {
        for (Metric<RateUse> m : rate) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (LimitsSnapshot s : pools) {
                for (RateUse r : s.rates()) {
                    add(rows, Tags.of("pool", s.pool(), "name", r.name()), m.value().apply(r));
                }
            }
            m.gauge().register(rows, true);
        }
        for (Metric<LimitsSnapshot> m : pool) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (LimitsSnapshot s : pools) {
                add(rows, Tags.of("pool", s.pool()), m.value().apply(s));
            }
            m.gauge().register(rows, true);
        }
        for (Metric<KeyUse> m : key) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (LimitsSnapshot s : pools) {
                for (KeyUse k : s.keys()) {
                    if (k.limit() != null) {
                        add(rows, Tags.of("pool", s.pool(), "key", k.key()), m.value().apply(k));
                    }
                }
            }
            m.gauge().register(rows, true);
        }
    }

    private static void add(List<MultiGauge.Row<?>> rows, Tags tags, Double value) {
        if (value != null) {
            rows.add(MultiGauge.Row.of(tags, value));
        }
    }
}
