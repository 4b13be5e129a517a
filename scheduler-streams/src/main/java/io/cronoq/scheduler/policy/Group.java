package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The live workers of one pool that carry exactly the same labels: a group, what a
 * snapshot reports and what the placement order ranks by specialization. Its workers are split
 * into {@link Profile}s by the resources they published; the group's figures are sums over them.
 */
final class Group {

    private final LabelSet labels;
    private final Map<String, Profile> profiles = new HashMap<>();
    /** Insertion-ordered, so every walk over the profiles is deterministic. */
    private final List<Profile> ordered = new ArrayList<>();

    Group(LabelSet labels) {
        this.labels = labels;
    }

    LabelSet labels() {
        return labels;
    }

    List<Profile> profiles() {
        return ordered;
    }

    Profile profile(String resourceKey) {
        return profiles.get(resourceKey);
    }

    void add(String resourceKey, Profile p) {
        profiles.put(resourceKey, p);
        ordered.add(p);
    }

    void remove(String resourceKey) {
        ordered.remove(profiles.remove(resourceKey));
    }

    boolean isEmpty() {
        return profiles.isEmpty();
    }

    int capacity() {
        return sum(p -> p.capacity);
    }

    int busy() {
        return sum(p -> p.busy);
    }

    int activeWorkers() {
        return sum(p -> p.activeWorkers);
    }

    int drainingBusy() {
        return sum(p -> p.drainingBusy);
    }

    @Override
    public String toString() {
        return "Group[" + labels + " profiles=" + ordered.size() + "]";
    }

    private int sum(java.util.function.ToIntFunction<Profile> of) {
        int sum = 0;
        for (Profile p : ordered) {
            sum += of.applyAsInt(p);
        }
        return sum;
    }
}
