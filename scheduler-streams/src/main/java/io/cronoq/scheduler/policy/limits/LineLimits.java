package io.cronoq.scheduler.policy.limits;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import io.cronoq.scheduler.policy.store.LineKeys;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The limits every task of one line names alike (its key says them, {@link LineKeys}): concurrency
 * keys with the max each task declared, and rate limits with the units each task takes. While the
 * line has waiting tasks it holds the pool's {@link LimitKey} and {@link RateLimit} for each
 * ({@link Limits#lineJoined}); the tasks of a line are held back, or admitted, together.
 */
public final class LineLimits {

    final String[] keyNames;
    /** The max each task declared per key; 0: none (the key's limit in the pool applies, else 1). */
    final int[] declared;
    final String[] rateNames;
    final int[] units;
    /** While the line has waiting tasks: the pool's key of each of {@link #keyNames}. */
    final LimitKey<?>[] keys;
    /** While the line has waiting tasks: the pool's rate limit of each of {@link #rateNames}. */
    final RateLimit<?>[] rates;

    private static final String[] NO_NAMES = {};
    private static final int[] NO_COUNTS = {};
    private static final LimitKey<?>[] NO_KEYS = {};
    private static final RateLimit<?>[] NO_RATES = {};

    private LineLimits(List<ConcurrencyKey> keyList, List<RateLimitUse> rateList) {
        Named named = Named.of(keyList, ConcurrencyKey::getKey, k -> k.getMax() == null ? 0 : k.getMax());
        keyNames = named.names();
        declared = named.counts();
        keys = keyNames.length == 0 ? NO_KEYS : new LimitKey<?>[keyNames.length];
        named = Named.of(rateList, RateLimitUse::getName, RateLimitUse::getUnits);
        rateNames = named.names();
        units = named.counts();
        rates = rateNames.length == 0 ? NO_RATES : new RateLimit<?>[rateNames.length];
    }

    /** Limits of one kind sorted by name, as a line key lists them: their names, and a count each (a max, units). */
    private record Named(String[] names, int[] counts) {

        private static final Named NONE = new Named(NO_NAMES, NO_COUNTS);

        static <T> Named of(List<T> limits, Function<T, String> name, ToIntFunction<T> count) {
            if (limits.isEmpty()) {
                return NONE;
            }
            if (limits.size() > 1) {
                limits = new ArrayList<>(limits);
                limits.sort(Comparator.comparing(name));
            }
            Named named = new Named(new String[limits.size()], new int[limits.size()]);
            for (int i = 0; i < named.names.length; i++) {
                named.names[i] = name.apply(limits.get(i));
                named.counts[i] = count.applyAsInt(limits.get(i));
            }
            return named;
        }
    }

    /** The limits a line key names, or {@code null} when it names none. */
    public static LineLimits of(String lineKey) {
        return LineKeys.limited(lineKey) ? new LineLimits(LineKeys.keysOf(lineKey), LineKeys.ratesOf(lineKey)) : null;
    }

    /** The limits a task names (those its line key says, without reading the key back), or {@code null} for none. */
    public static LineLimits of(List<ConcurrencyKey> keys, List<RateLimitUse> rates) {
        return keys.isEmpty() && rates.isEmpty() ? null : new LineLimits(keys, rates);
    }

    /** The units of the named rate limit its tasks take. */
    int unitsOf(RateLimit<?> rate) {
        for (int i = 0; i < rateNames.length; i++) {
            if (rateNames[i].equals(rate.name)) {
                return units[i];
            }
        }
        return 0;
    }

    /** The max its tasks declared for the key (0: none). */
    int declaredFor(LimitKey<?> key) {
        for (int i = 0; i < keyNames.length; i++) {
            if (keyNames[i].equals(key.name)) {
                return declared[i];
            }
        }
        return 0;
    }

    /** Its limits in words, for a class's view: {@code concurrency customer-42 (max 2); rate openai ×1}. */
    public String text() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < keyNames.length; i++) {
            b.append(b.length() == 0 ? "" : "; ").append("concurrency ").append(keyNames[i]);
            if (declared[i] > 0) {
                b.append(" (max ").append(declared[i]).append(')');
            }
        }
        for (int i = 0; i < rateNames.length; i++) {
            b.append(b.length() == 0 ? "" : "; ").append("rate ").append(rateNames[i]).append(" x").append(units[i]);
        }
        return b.toString();
    }
}
