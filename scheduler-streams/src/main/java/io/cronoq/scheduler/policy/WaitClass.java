package io.cronoq.scheduler.policy;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * One requirement class: the waiting tasks that require exactly the same labels. In memory it
 * keeps only their count and the head of their line (the tasks stay in the {@link WaitingQueue}),
 * the groups that can serve it, which of those have a free slot now, and their total capacity, so
 * deciding where a task goes or why it waits never looks at the backlog.
 */
final class WaitClass {

    private final LabelSet labels;
    /** Groups whose labels include this class's: maintained by {@link Groups}. */
    final List<Group> groups = new ArrayList<>();
    /** Those of {@link #groups} with a free slot (insertion-ordered; iteration costs its size). */
    final LinkedHashSet<Group> freeGroups = new LinkedHashSet<>();
    /** Slots of the ACTIVE workers of {@link #groups}. */
    int capacity;

    long count;
    long headOrder;
    String headTaskId;

    WaitClass(LabelSet labels) {
        this.labels = labels;
    }

    LabelSet labels() {
        return labels;
    }

    String key() {
        return labels.key();
    }

    boolean servable() {
        return count > 0 && !freeGroups.isEmpty();
    }

    /** The group a task of this class should go to now ({@link Ordering#GROUPS}), or {@code null}. */
    Group bestFreeGroup() {
        Group best = null;
        for (Group g : freeGroups) {
            if (best == null || Ordering.GROUPS.compare(g, best) < 0) {
                best = g;
            }
        }
        return best;
    }

    @Override
    public String toString() {
        return "WaitClass[" + labels + " count=" + count + "]";
    }
}
