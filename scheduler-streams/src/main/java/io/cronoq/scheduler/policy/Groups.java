package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.WorkerState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The groups of one pool and their links to the requirement classes: which groups can serve which
 * class (kept incrementally when a group or a class is created or a group disappears, never
 * recomputed per decision), each class's free groups and capacity. Every change to a group's
 * workers or slots goes through here so those links stay true.
 */
final class Groups {

    private final ClassIndex classes;
    private final Map<String, Group> groups = new HashMap<>();

    Groups(ClassIndex classes) {
        this.classes = classes;
    }

    List<Group> all() {
        return new ArrayList<>(groups.values());
    }

    /** The class of this key, created and linked to the groups that can serve it if new. */
    WaitClass classFor(String key) {
        WaitClass c = classes.get(key);
        if (c == null) {
            c = classes.create(LabelSet.parse(key));
            for (Group g : groups.values()) {
                if (g.labels().includes(c.labels())) {
                    link(g, c);
                }
            }
        }
        return c;
    }

    /** Counts a live worker into the group of these labels (created if new). */
    Group join(Worker w, LabelSet labels) {
        Group g = groups.get(labels.key());
        if (g == null) {
            g = new Group(labels);
            groups.put(labels.key(), g);
            for (WaitClass c : classes.all()) {
                if (labels.includes(c.labels())) {
                    link(g, c);
                }
            }
        }
        int before = g.capacity();
        g.add(w);
        w.group(g);
        changed(g, before);
        return g;
    }

    /** Counts a worker out of its group; an empty group disappears. */
    void leave(Worker w) {
        Group g = w.group();
        int before = g.capacity();
        g.remove(w);
        w.group(null);
        changed(g, before);
        if (g.isEmpty()) {
            groups.remove(g.labels().key());
            g.removed = true;
            for (WaitClass c : g.classes) {
                c.groups.remove(g);
                c.freeGroups.remove(g);
            }
        }
    }

    /** An ACTIVE worker stops taking work: its slots leave capacity, its attempts finish. */
    void drain(Worker w) {
        Group g = w.group();
        int before = g.capacity();
        g.remove(w);
        w.state(WorkerState.DRAINING);
        g.add(w);
        changed(g, before);
    }

    void assign(Worker w, AttemptRef ref, long sequence) {
        Group g = w.group();
        g.assign(w, ref, sequence);
        changed(g, g.capacity());
    }

    boolean release(Worker w, String taskId, int attempt) {
        Group g = w.group();
        boolean held = g.release(w, taskId, attempt);
        changed(g, g.capacity());
        return held;
    }

    private void link(Group g, WaitClass c) {
        g.classes.add(c);
        c.groups.add(g);
        c.capacity += g.capacity();
        if (g.listedFree) {
            c.freeGroups.add(g);
        }
    }

    /** Propagates a group's capacity change and free/full transition to the classes it serves. */
    private void changed(Group g, int capacityBefore) {
        int delta = g.capacity() - capacityBefore;
        boolean free = g.free() > 0;
        if (delta == 0 && free == g.listedFree) {
            return;
        }
        for (WaitClass c : g.classes) {
            c.capacity += delta;
            if (free != g.listedFree) {
                if (free) {
                    c.freeGroups.add(g);
                } else {
                    c.freeGroups.remove(g);
                }
            }
        }
        g.listedFree = free;
    }
}
