package io.cronoq.scheduler.policy.common;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What changed since placement last looked (the lines whose limits changed, the tenants a max let
 * go): each kept once, in the order first noticed, and taken all at once. Not thread-safe: one
 * pool, one thread.
 */
public final class Noticed<T> {

    private final LinkedHashSet<T> items = new LinkedHashSet<>();

    /** Notices one (again: kept once, at its first place). */
    public void add(T item) {
        items.add(item);
    }

    /** Forgets one, noticed or not. */
    public void remove(T item) {
        items.remove(item);
    }

    /** Whether anything was noticed since the last {@link #take}. */
    public boolean any() {
        return !items.isEmpty();
    }

    /** What was noticed since the last call, in order (nothing: an empty list, no copy); forgotten here. */
    public List<T> take() {
        if (items.isEmpty()) {
            return List.of();
        }
        List<T> taken = new ArrayList<>(items);
        items.clear();
        return taken;
    }
}
