package io.cronoq.scheduler.query;

/**
 * The key layout of the waiting stores as {@link io.cronoq.scheduler.topology.StoreNames} documents it:
 * {@code pool \0 class \0 order} (order as 16 hex digits, so byte order is line order) in
 * {@code cronoq-waiting}, {@code pool \0 class} in {@code cronoq-waiting-counts}.
 */
final class WaitingKeys {

    static final char SEP = '\0';

    private WaitingKeys() {}

    /** Prefix of every key of a pool in both waiting stores. */
    static String poolPrefix(String pool) {
        return pool + SEP;
    }

    /** Prefix of the entries of one class of a pool in {@code cronoq-waiting}. */
    static String classPrefix(String pool, String classKey) {
        return pool + SEP + classKey + SEP;
    }

    /** The class of a {@code cronoq-waiting} or {@code cronoq-waiting-counts} key of this pool. */
    static String classOf(String pool, String key) {
        String rest = key.substring(pool.length() + 1);
        int sep = rest.indexOf(SEP);
        return sep < 0 ? rest : rest.substring(0, sep);
    }

    /** The order (place in line) of a {@code cronoq-waiting} key. */
    static long orderOf(String key) {
        return Long.parseUnsignedLong(key.substring(key.lastIndexOf(SEP) + 1), 16);
    }
}
