package io.cronoq.gateway;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One pool's concurrency keys and rate limits, as {@code /v1/limits} and each pool of the snapshot show
 * them. The keys listed are capped ({@link ListCaps#keys()}); the figures before them count every key.
 *
 * @param pool            the pool; left out inside a snapshot's pool, which names it already
 * @param keysTotal       keys an admin limited, an attempt holds or a waiting task names (all, not only those listed)
 * @param keysInUse       keys that running attempts hold
 * @param keysAtLimit     keys whose running attempts allow no other task to start beside them
 * @param heldBackByKeys  waiting tasks a concurrency key holds back now
 * @param heldBackByRates waiting tasks a rate limit holds back now (short of units, or not defined)
 * @param keys            the keys holding back the most tasks first, then the busiest, then by name; at most the cap
 * @param rates           every rate limit an admin defined or a waiting task names, by name
 */
public record PoolLimitsView(@JsonInclude(JsonInclude.Include.NON_NULL) String pool, int keysTotal, int keysInUse,
                             int keysAtLimit, long heldBackByKeys, long heldBackByRates, List<KeyView> keys,
                             List<RateView> rates) {

    /** The same limits without the pool's name, to sit inside a pool's view. */
    PoolLimitsView inPool() {
        return new PoolLimitsView(null, keysTotal, keysInUse, keysAtLimit, heldBackByKeys, heldBackByRates, keys, rates);
    }

    /**
     * One concurrency key of the pool.
     *
     * @param limit    the limit an admin set for it in the pool, {@code null} when none (tasks' own max, else 1)
     * @param running  attempts holding it (assigned or running)
     * @param inForce  the smallest limit among the attempts holding it, {@code null} when none does
     * @param atLimit  whether its running attempts allow no other task to start beside them
     * @param heldBack waiting tasks it holds back now
     */
    public record KeyView(String key, Integer limit, int running, Integer inForce, boolean atLimit, long heldBack) {}

    /**
     * One rate limit of the pool.
     *
     * @param defined   whether an admin defined it (tasks naming an undefined one wait until it is)
     * @param perSecond units refilled per second, {@code null} when not defined
     * @param burst     units its bucket holds at most, {@code null} when not defined
     * @param available units in its bucket now (to 3 decimals), {@code null} when not defined
     * @param heldBack  waiting tasks it holds back now
     */
    public record RateView(String name, boolean defined, Double perSecond, Integer burst, Double available,
                           long heldBack) {}
}
