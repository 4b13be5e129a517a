package io.cronoq.scheduler.policy.common;

/**
 * The most entries a hash table held since it was last made: Java's hash maps and sets never give
 * back the table they grew, so one that held a million lines and holds a hundred keeps a million
 * slots. Its owner notes each growth and, after a removal, copies the collection once it holds an
 * eighth of its peak or less (the copy costs what the removals since the peak did). Not
 * thread-safe: one pool, one thread.
 */
public final class Peak {

    /** Tables that never held more than this are left as they are. */
    private static final int FLOOR = 256;

    private int peak;

    /** Notes the size after an entry was added. */
    public void grew(int size) {
        if (size > peak) {
            peak = size;
        }
    }

    /**
     * After a removal: whether the collection, now of {@code size} entries, should be copied to give
     * its table back; if so, its peak starts again from {@code size}.
     */
    public boolean shrinkNow(int size) {
        if (peak > FLOOR && size <= peak >>> 3) {
            peak = size;
            return true;
        }
        return false;
    }
}
