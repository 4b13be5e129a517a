package io.cronoq.gateway;

import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot.KeyUse;
import io.cronoq.scheduler.policy.LimitsSnapshot.RateUse;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * Gauges of the concurrency keys and rate limits of the pools this instance owns, refreshed at each
 * scrape as {@link PoolGauges} are. Per rate limit (labels {@code pool}, {@code name}): what its bucket
 * holds, its refill and burst (no rows while it is not defined) and the tasks it holds back. Per pool
 * (label {@code pool}): the keys in use, the keys at their limit and the tasks keys hold back. Per key
 * (labels {@code pool}, {@code key}) only for the keys an admin limited: a pool may have a key per
 * customer, and a time series per key would be unbounded. Rows of limits that are gone disappear.
 */
final class LimitGauges {

    private final GaugeFamily<RateUse> rate;
    private final GaugeFamily<LimitsSnapshot> pool;
    private final GaugeFamily<KeyUse> key;

    LimitGauges(MeterRegistry registry) {
        rate = new GaugeFamily<RateUse>(registry)
                .gaugeOrNone("cronoq.rate.limit.available", "Units in the rate limit's bucket now",
                        r -> r.defined() ? r.available() : null)
                .gaugeOrNone("cronoq.rate.limit.per.second", "Units the rate limit refills per second",
                        r -> r.defined() ? r.perSecond() : null)
                .gaugeOrNone("cronoq.rate.limit.burst", "Units the rate limit's bucket holds at most",
                        r -> r.defined() ? (double) r.burst() : null)
                .gaugeOrNone("cronoq.rate.limit.held.back", "Waiting tasks the rate limit holds back (short of "
                        + "units, or not defined)", r -> (double) r.heldBack());
        pool = new GaugeFamily<LimitsSnapshot>(registry)
                .gaugeOrNone("cronoq.concurrency.keys.in.use", "Concurrency keys that running attempts hold",
                        s -> (double) s.keys().stream().filter(k -> k.running() > 0).count())
                .gaugeOrNone("cronoq.concurrency.keys.at.limit", "Concurrency keys whose running attempts allow no "
                        + "other task to start beside them",
                        s -> (double) s.keys().stream().filter(ViewMapper::atLimit).count())
                .gaugeOrNone("cronoq.concurrency.held.back", "Waiting tasks a concurrency key holds back",
                        s -> (double) s.keys().stream().mapToLong(KeyUse::heldBack).sum());
        key = new GaugeFamily<KeyUse>(registry)
                .gaugeOrNone("cronoq.concurrency.key.running", "Attempts holding the concurrency key (keys an admin "
                        + "limited only)", k -> (double) k.running())
                .gaugeOrNone("cronoq.concurrency.key.limit", "The limit an admin set for the concurrency key in the "
                        + "pool", k -> (double) k.limit())
                .gaugeOrNone("cronoq.concurrency.key.held.back", "Waiting tasks the concurrency key holds back (keys "
                        + "an admin limited only)", k -> (double) k.heldBack());
    }

    /** Replaces every row with these pools' limits (pools, rate limits and limited keys that are gone disappear). */
    void update(List<LimitsSnapshot> pools) {
        List<GaugeFamily.Row<RateUse>> rates = new ArrayList<>();
        List<GaugeFamily.Row<LimitsSnapshot>> perPool = new ArrayList<>();
        List<GaugeFamily.Row<KeyUse>> keys = new ArrayList<>();
        for (LimitsSnapshot s : pools) {
            for (RateUse r : s.rates()) {
                rates.add(new GaugeFamily.Row<>(Tags.of("pool", s.pool(), "name", r.name()), r));
            }
            perPool.add(new GaugeFamily.Row<>(Tags.of("pool", s.pool()), s));
            for (KeyUse k : s.keys()) {
                if (k.limit() != null) {
                    keys.add(new GaugeFamily.Row<>(Tags.of("pool", s.pool(), "key", k.key()), k));
                }
            }
        }
        rate.update(rates);
        pool.update(perPool);
        key.update(keys);
    }
}
