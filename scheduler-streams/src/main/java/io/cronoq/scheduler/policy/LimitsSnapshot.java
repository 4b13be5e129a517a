package io.cronoq.scheduler.policy;

import java.util.Comparator;
import java.util.List;

/**
 * One pool's concurrency keys and rate limits at one moment: what {@code /v1/limits}, the snapshot,
 * the metrics and {@code cronoq limits} show.
 *
 * @param pool  the pool
 * @param keys  every key an admin limited, an attempt holds or a waiting task names; the keys holding
 *              back the most tasks first, then the busiest, then by name
 * @param rates every rate limit an admin defined or a waiting task names, by name
 */
public record LimitsSnapshot(String pool, List<KeyUse> keys, List<RateUse> rates) {

    /**
     * One concurrency key.
     *
     * @param key      its name
     * @param limit    the limit an admin set for it in the pool, or {@code null} (tasks' own max, else 1)
     * @param running  attempts holding it (assigned or running)
     * @param inForce  the smallest limit among the attempts holding it (no task starts beside them
     *                 beyond it), or {@code null} when none does
     * @param heldBack waiting tasks it holds back now
     */
    public record KeyUse(String key, Integer limit, int running, Integer inForce, long heldBack) {

        /** Most tasks held back first, then most running, then by name. */
        public static final Comparator<KeyUse> ORDER = Comparator.comparingLong(KeyUse::heldBack).reversed()
                .thenComparing(Comparator.comparingInt(KeyUse::running).reversed())
                .thenComparing(KeyUse::key);
    }

    /**
     * One rate limit.
     *
     * @param name      its name
     * @param defined   whether an admin defined it (a task naming an undefined one waits)
     * @param perSecond units refilled per second (0 when not defined)
     * @param burst     units its bucket holds at most (0 when not defined)
     * @param available units in its bucket now
     * @param heldBack  waiting tasks it holds back now
     */
    public record RateUse(String name, boolean defined, double perSecond, int burst, double available, long heldBack) {}
}
