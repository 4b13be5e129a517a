package io.cronoq.gateway;

/**
 * How many concurrency keys and waiting classes a pool's view lists at most: a pool may hold tens of
 * thousands of keys (one per customer, say) and as many lines, so the views list the first ones in
 * their order and say how many there are in all.
 *
 * @param keys    concurrency keys listed per pool (the keys holding back the most tasks, then the busiest)
 * @param classes waiting classes listed per pool in the snapshot (the longest-waiting first)
 */
public record ListCaps(int keys, int classes) {

    /** What a request that names no cap gets: {@value #DEFAULT_KEYS} keys and {@value #DEFAULT_CLASSES} classes. */
    public static final ListCaps DEFAULT = new ListCaps(ListCaps.DEFAULT_KEYS, ListCaps.DEFAULT_CLASSES);

    static final int DEFAULT_KEYS = 100;
    static final int DEFAULT_CLASSES = 100;
    /** The most keys, or classes, one answer lists per pool. */
    static final int MAX = 10_000;

    /** Checks that each cap is 1 to {@link #MAX}. */
    public ListCaps {
        if (keys < 1 || keys > MAX || classes < 1 || classes > MAX) {
            throw new IllegalArgumentException("caps are 1 to " + MAX + ", not keys=" + keys + " classes=" + classes);
        }
    }
}
