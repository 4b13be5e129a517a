package io.cronoq.schemas.rules;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.RateLimitUse;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The rules of concurrency keys and rate limits, on a task and on an admin's {@link LimitSet},
 * applied alike by the scheduler, the gateway, the Java client, the command line and the config
 * file: each check names the field that is wrong and says what is allowed. A task naming a rate
 * limit that no admin defined is valid: it waits, with that reason, until the limit is defined.
 */
public final class LimitRules {

    /** The longest concurrency key: 200 characters. */
    public static final int MAX_KEY_LENGTH = 200;
    /** The most concurrency keys, and the most rate limits, one task may name: 16 of each. */
    public static final int MAX_PER_TASK = 16;
    /** The largest limit of a key, and the most units a task may take or a bucket hold. */
    public static final int MAX_COUNT = 1_000_000;
    /** The fastest refill of a rate limit: a million units per second. */
    public static final double MAX_PER_SECOND = 1_000_000;

    static final String KEY_ALLOWED = "a concurrency key is 1 to " + MAX_KEY_LENGTH
            + " characters, none of them a space or a control character";
    static final String RATE_NAME_ALLOWED = "a rate limit's name is " + Rules.LABEL_VALUE_ALLOWED;

    private LimitRules() {}

    /** A task's concurrency keys: at most {@link #MAX_PER_TASK}, each valid and named once, each max at least 1. */
    public static Optional<Violation> concurrency(List<ConcurrencyKey> keys) {
        if (keys == null || keys.isEmpty()) {
            return Optional.empty();
        }
        if (keys.size() > MAX_PER_TASK) {
            return tooMany("concurrency", keys.size(), "concurrency keys");
        }
        Set<String> seen = keys.size() == 1 ? null : new HashSet<>();
        for (int i = 0; i < keys.size(); i++) {
            ConcurrencyKey k = keys.get(i);
            // The field's name is made only for a refusal: a valid task costs no words.
            if (!isKey(k.getKey())) {
                String field = "concurrency[" + i + "].key";
                return Optional.of(new Violation(field, describe(field, k.getKey()) + "; " + KEY_ALLOWED));
            }
            if (seen != null && !seen.add(k.getKey())) {
                return Optional.of(new Violation("concurrency[" + i + "].key", "concurrency[" + i + "] names the key '"
                        + k.getKey() + "' again; name each key once"));
            }
            if (!inRange(k.getMax())) {
                return max("concurrency[" + i + "].max", k.getMax(), "leave it out for the key's limit in the pool, else 1");
            }
        }
        return Optional.empty();
    }

    /** The rate limits a task consumes: at most {@link #MAX_PER_TASK}, each named once, units 1 to {@link #MAX_COUNT}. */
    public static Optional<Violation> rateLimits(List<RateLimitUse> uses) {
        if (uses == null || uses.isEmpty()) {
            return Optional.empty();
        }
        if (uses.size() > MAX_PER_TASK) {
            return tooMany("rateLimits", uses.size(), "rate limits");
        }
        Set<String> seen = uses.size() == 1 ? null : new HashSet<>();
        for (int i = 0; i < uses.size(); i++) {
            RateLimitUse u = uses.get(i);
            // The field's name is made only for a refusal: a valid task costs no words.
            if (!Rules.isLabelValue(u.getName())) {
                String field = "rateLimits[" + i + "].name";
                return Optional.of(new Violation(field, describe(field, u.getName()) + "; " + RATE_NAME_ALLOWED));
            }
            if (seen != null && !seen.add(u.getName())) {
                return Optional.of(new Violation("rateLimits[" + i + "].name", "rateLimits[" + i
                        + "] names the rate limit '" + u.getName() + "' again; name each rate limit once, with all its units"));
            }
            if (u.getUnits() < 1 || u.getUnits() > MAX_COUNT) {
                return Optional.of(new Violation("rateLimits[" + i + "].units", "rateLimits[" + i + "].units is "
                        + u.getUnits() + "; a task takes 1 to " + MAX_COUNT + " units of a rate limit"));
            }
        }
        return Optional.empty();
    }

    /** Every rule of an admin's limit change. */
    public static Optional<Violation> check(LimitSet e) {
        Optional<Violation> v = Violation.first(Rules.pool(e.getPool()),
                Rules.text("setBy", e.getSetBy(), Rules.MAX_SUBMITTER_LENGTH));
        if (v.isPresent()) {
            return v;
        }
        if (e.getKind() == null) {
            return Optional.of(new Violation("kind", "kind is missing; it is CONCURRENCY_KEY or RATE_LIMIT"));
        }
        if (e.getKind() == LimitKind.CONCURRENCY_KEY) {
            if (!isKey(e.getName())) {
                return Optional.of(new Violation("name", describe("name", e.getName()) + "; " + KEY_ALLOWED));
            }
            if (e.getPerSecond() != null || e.getBurst() != null) {
                return Optional.of(new Violation(e.getPerSecond() != null ? "perSecond" : "burst",
                        "perSecond and burst belong to a rate limit; a concurrency key has only a max"));
            }
            return inRange(e.getMax()) ? Optional.empty() : max("max", e.getMax(), "or null to remove it");
        }
        if (!Rules.isLabelValue(e.getName())) {
            return Optional.of(new Violation("name", describe("name", e.getName()) + "; " + RATE_NAME_ALLOWED));
        }
        if (e.getMax() != null) {
            return Optional.of(new Violation("max", "max belongs to a concurrency key; a rate limit has perSecond and burst"));
        }
        if (e.getPerSecond() == null) {
            return e.getBurst() == null ? Optional.empty() : Optional.of(new Violation("burst",
                    "a burst without perSecond; give perSecond too, or neither to remove the rate limit"));
        }
        return Violation.first(perSecond(e.getPerSecond()), burst(e.getBurst()));
    }

    /** A rate limit's refill: above 0, at most {@link #MAX_PER_SECOND} units per second. */
    public static Optional<Violation> perSecond(double perSecond) {
        if (perSecond > 0 && perSecond <= MAX_PER_SECOND) {
            return Optional.empty();
        }
        return Optional.of(new Violation("perSecond", "perSecond is " + perSecond + "; a rate limit refills above 0 and at most "
                + (long) MAX_PER_SECOND + " units per second (0.5 is one unit every two seconds)"));
    }

    /** A rate limit's burst: null (its refill per second, rounded up) or 1 to {@link #MAX_COUNT}. */
    public static Optional<Violation> burst(Integer burst) {
        if (burst == null || burst >= 1 && burst <= MAX_COUNT) {
            return Optional.empty();
        }
        return Optional.of(new Violation("burst", "burst is " + burst + "; a rate limit holds 1 to " + MAX_COUNT
                + " units (leave it out for its refill per second)"));
    }

    /** The burst a rate limit gets when none is given: its refill per second, rounded up. */
    public static int defaultBurst(double perSecond) {
        return (int) Math.max(1, Math.min(MAX_COUNT, Math.ceil(perSecond)));
    }

    /** Whether {@code s} is a valid concurrency key. */
    public static boolean isKey(String s) {
        if (s == null || s.isEmpty() || s.length() > MAX_KEY_LENGTH) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c > ' ' && c < 127) {
                continue; // printable ASCII other than the space: the common case, without a table lookup
            }
            if (c <= ' ' || Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                return false;
            }
        }
        return true;
    }

    /** Too many entries in a task's list {@code field}: {@code count} {@code what}, more than {@link #MAX_PER_TASK}. */
    private static Optional<Violation> tooMany(String field, int count, String what) {
        return Optional.of(new Violation(field, count + " " + what + "; a task names at most " + MAX_PER_TASK));
    }

    /** Whether a key's max is absent or 1 to {@link #MAX_COUNT}. */
    private static boolean inRange(Integer max) {
        return max == null || max >= 1 && max <= MAX_COUNT;
    }

    /** A max out of range; {@code absent} says what leaving it out means where it was given (a task, an admin's change). */
    private static Optional<Violation> max(String field, Integer max, String absent) {
        return Optional.of(new Violation(field, field + " is " + max + "; a key's limit is 1 to " + MAX_COUNT
                + " attempts at once (" + absent + ")"));
    }

    private static String describe(String what, String value) {
        if (value == null || value.isEmpty()) {
            return what + " is empty";
        }
        String shown = value.length() > 64 ? value.substring(0, 64) + "..." : value;
        return what + " '" + shown + "' is not allowed";
    }
}
