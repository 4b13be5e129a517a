package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.limits.LineLimits;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.ResourceProfile;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.LineKeys;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.SharingRules;
import io.cronoq.events.WorkerState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The groups and profiles of one pool and their links to the requirement classes: which profiles
 * can serve which class (labels included and resources satisfied), computed once when a profile or
 * a class appears and never per decision; each class's free profiles and capacity. A profile's
 * labels and resources never change (a worker that registers again with others joins another
 * profile), so a link never needs recomputing. Every change to a profile's workers or slots goes
 * through here so those links stay true, and so does what each tenant holds ({@link Tenants}) and
 * which concurrency keys running attempts hold ({@link Limits}): both counted on a slot's hold and
 * release, hence exactly once per attempt.
 */
final class Groups {

    private final ClassIndex classes;
    private final Tenants tenants;
    private final Limits<WaitClass> limits;
    private final Map<String, Group> groups = new HashMap<>();
    /** The requirement classes by requirement key: what profiles link to, whatever the tenants. */
    private final Map<String, Need> needs = new HashMap<>();
    /** Counts the changes of capacity and of links between profiles and classes: what could ever run where. */
    long fleetChanges;

    Groups(ClassIndex classes, Tenants tenants, Limits<WaitClass> limits) {
        this.classes = classes;
        this.tenants = tenants;
        this.limits = limits;
    }

    /** A copy of the groups, to sort. */
    List<Group> all() {
        return new ArrayList<>(groups.values());
    }

    /** The groups, unordered, read-only. */
    Collection<Group> view() {
        return Collections.unmodifiableCollection(groups.values());
    }

    /**
     * The class of this line key (a requirement key, and its tenant's name when not the default:
     * {@link LineKeys}), created and linked to the profiles that can serve it if new.
     */
    WaitClass classFor(String key) {
        return classFor(key, null, null);
    }

    /**
     * {@link #classFor(String)}, with the requirement key and the task whose line it is when the
     * caller has them ({@code null}: read from the key), so a new line reads nothing back.
     */
    WaitClass classFor(String key, String requirementKey, TaskSubmitted task) {
        WaitClass c = classes.get(key);
        if (c != null && c.tenant.forgotten()) {
            classes.forget(c); // an empty line of a tenant forgotten since: the name stands for a new one
            c.need.removeLine(c);
            c = null;
        }
        if (c == null) {
            sweepIfDue();
            if (requirementKey == null) {
                requirementKey = LineKeys.requirementKey(key);
            }
            Need n = needs.get(requirementKey);
            if (n == null) {
                n = new Need(Requirement.parse(requirementKey), tenants);
                needs.put(requirementKey, n);
                for (Group g : groups.values()) {
                    if (g.labels().includes(n.labels())) {
                        for (Profile p : g.profiles()) {
                            if (p.resources.satisfies(n.requirement.resources())) {
                                link(p, n);
                            }
                        }
                    }
                }
            }
            LineLimits limits = task != null ? LineLimits.of(task.getConcurrency(), task.getRateLimits()) : LineLimits.of(key);
            String tenant = task != null ? SharingRules.tenantOf(task.getTenant()) : LineKeys.tenantOf(key);
            c = classes.create(n, tenants.get(tenant), key, limits);
            n.addLine(c);
        }
        return c;
    }

    /**
     * Forgets the empty lines, and the requirement classes left without one, once empty lines
     * outnumber waiting ones by far ({@link ClassIndex#sweepDue}): looked at when a new line is made
     * and after every input, so lines that many short-lived tenants left go soon after them.
     */
    void sweepIfDue() {
        if (!classes.sweepDue()) {
            return;
        }
        for (WaitClass gone : classes.sweep()) {
            gone.need.removeLine(gone);
        }
        // Requirement classes left without a line (their last line swept, or a line of limits gone).
        needs.values().removeIf(n -> {
            if (!n.hasLines()) {
                for (Profile p : n.profiles) {
                    p.needs.remove(n);
                }
                return true;
            }
            return false;
        });
    }

    /** Counts a live worker into the profile of its labels and resources (created if new). */
    Profile join(Worker w) {
        LabelSet labels = LabelSet.of(w.record.getLabels());
        ResourceProfile resources = ResourceProfile.of(w.record.getResources());
        Group g = groups.get(labels.key());
        if (g == null) {
            g = new Group(labels);
            groups.put(labels.key(), g);
        }
        String resourceKey = resources.key();
        Profile p = g.profile(resourceKey);
        if (p == null) {
            p = new Profile(g, resources);
            g.add(resourceKey, p);
            for (Need n : needs.values()) {
                if (labels.includes(n.labels()) && resources.satisfies(n.requirement.resources())) {
                    link(p, n);
                }
            }
        }
        int before = p.capacity;
        p.add(w);
        w.profile(p);
        changed(p, before);
        if (w.active()) {
            tenants.capacity(w.slots(), resources.gpus());
        }
        for (AttemptRef ref : w.running()) {
            tenants.hold(ref, labels);
            limits.hold(ref);
        }
        return p;
    }

    /** Counts a worker out of its profile; an empty profile, and an empty group, disappear. */
    void leave(Worker w) {
        Profile p = w.profile();
        leaveCapacity(w, p);
        for (AttemptRef ref : w.running()) {
            tenants.free(ref, p.labels());
            limits.free(ref);
        }
        int before = p.capacity;
        p.remove(w);
        w.profile(null);
        changed(p, before);
        if (p.isEmpty()) {
            Group g = p.group;
            g.remove(p.resources.key());
            p.removed = true;
            fleetChanges++;
            for (Need n : p.needs) {
                n.profiles.remove(p);
                n.unlist(p);
            }
            if (g.isEmpty()) {
                groups.remove(g.labels().key());
            }
        }
    }

    /** An ACTIVE worker stops taking work: its slots leave capacity, its attempts finish. */
    void drain(Worker w) {
        Profile p = w.profile();
        leaveCapacity(w, p);
        int before = p.capacity;
        p.remove(w);
        w.state(WorkerState.DRAINING);
        p.add(w);
        changed(p, before);
    }

    void assign(Worker w, AttemptRef ref, long sequence) {
        Profile p = w.profile();
        p.assign(w, ref, sequence);
        tenants.hold(ref, p.labels());
        limits.hold(ref);
        changed(p, p.capacity);
    }

    boolean release(Worker w, String taskId, int attempt) {
        Profile p = w.profile();
        AttemptRef held = p.release(w, taskId, attempt);
        if (held != null) {
            tenants.free(held, p.labels());
            limits.free(held);
        }
        changed(p, p.capacity);
        return held != null;
    }

    /**
     * Holds {@code slots} of the profile's idle slots for the gang reserving it ({@code reservedFor},
     * null when none): single tasks see them as taken, so the classes it serves list it free only
     * while an idle slot is left unheld.
     */
    void hold(Profile p, String reservedFor, int slots) {
        p.reservedFor = reservedFor;
        p.held = slots;
        changed(p, p.capacity);
    }

    /** Counts the tenant's running attempts, on the live workers, into its (new) quotas. */
    void countQuotas(Tenant t, Collection<Worker> workers) {
        for (Worker w : workers) {
            if (w.live() && w.profile() != null) {
                for (AttemptRef ref : w.running()) {
                    if (tenants.get(ref.getTenant()) == t) {
                        tenants.countIntoQuotas(t, w.profile().labels());
                    }
                }
            }
        }
    }

    /** An ACTIVE worker's slots and GPUs leave the pool's capacity (it drains or leaves). */
    private void leaveCapacity(Worker w, Profile p) {
        if (w.active()) {
            tenants.capacity(-w.slots(), -p.resources.gpus());
        }
    }

    private void link(Profile p, Need n) {
        fleetChanges++;
        p.needs.add(n);
        n.profiles.add(p);
        n.capacity += p.capacity;
        if (p.listedFree) {
            n.list(p);
        }
    }

    /** Propagates a profile's capacity change and free/full transition to the classes it serves. */
    private void changed(Profile p, int capacityBefore) {
        int delta = p.capacity - capacityBefore;
        if (delta != 0) {
            fleetChanges++;
        }
        boolean free = p.free() > 0;
        if (delta == 0 && free == p.listedFree) {
            return;
        }
        for (Need n : p.needs) {
            n.capacity += delta;
            if (free != p.listedFree) {
                if (free) {
                    n.list(p);
                } else {
                    n.unlist(p);
                }
            }
        }
        p.listedFree = free;
    }
}
