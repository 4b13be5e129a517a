package io.cronoq.scheduler.policy.match;

/**
 * A value whose canonical key is its identity: it equals another of its own class with the same key,
 * and hashes as its key.
 */
public abstract class Keyed {

    private final String key;

    Keyed(String key) {
        this.key = key;
    }

    /** The canonical key. */
    public final String key() {
        return key;
    }

    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && key.equals(((Keyed) o).key);
    }

    @Override
    public final int hashCode() {
        return key.hashCode();
    }
}
