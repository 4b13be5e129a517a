package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.common.Peak;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.limits.LineLimits;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The requirement classes of one pool over its {@link WaitingQueue}: every change to a line goes
 * to the queue, and the count and head of each line are kept here in memory. Taking a head or
 * removing a task costs one queue lookup for the new head, whatever the size of the backlog.
 *
 * <p>A class that empties stays known (its links to the profiles are reused by the next task of the
 * same requirement) until empty classes outnumber waiting ones by far; then {@link Groups} forgets
 * them, so a stream of ever-new requirements does not grow the heap without bound.
 */
final class ClassIndex implements Tenants.Watcher {

    /** Empty classes kept at least, whatever the number of waiting ones. */
    private static final int KEEP_EMPTY = 1_024;

    private final WaitingQueue queue;
    private final Tenants tenants;
    private final Limits<WaitClass> limits;
    private Map<String, WaitClass> classes = new HashMap<>();
    private final Peak classesPeak = new Peak();
    /** Classes with at least one waiting task, in the order they last became non-empty. */
    private LinkedHashSet<WaitClass> waitingClasses = new LinkedHashSet<>();
    private final Peak waitingPeak = new Peak();
    private long waiting;
    /** Each waiting tenant's classes with waiting tasks, in the order they last became non-empty. */
    private final Map<Tenant, LinkedHashSet<WaitClass>> byTenant = new HashMap<>();

    ClassIndex(WaitingQueue queue, Tenants tenants, Limits<WaitClass> limits) {
        this.queue = queue;
        this.tenants = tenants;
        this.limits = limits;
    }

    WaitClass get(String key) {
        return classes.get(key);
    }

    /** Registers a new class with this line key; {@link Groups} links it to the profiles that can serve it. */
    WaitClass create(Need need, Tenant tenant, String key, LineLimits limits) {
        WaitClass c = new WaitClass(need, tenant, key, limits);
        classes.put(key, c);
        classesPeak.grew(classes.size());
        return c;
    }

    /** The classes that have waiting tasks. */
    Collection<WaitClass> waitingClasses() {
        return waitingClasses;
    }

    /** The tenant's classes that have waiting tasks (read only: a tenant that never waited costs nothing). */
    Set<WaitClass> waitingOf(Tenant t) {
        Set<WaitClass> set = byTenant.get(t);
        return set != null ? set : Set.of();
    }

    /** A waiting tenant's share fell: it moves ahead among the tenants of each class it waits in. */
    @Override
    public void shareFell(Tenant t) {
        Set<WaitClass> waiting = byTenant.get(t);
        if (waiting != null) {
            for (WaitClass c : waiting) {
                if (c.seat != null) {
                    c.need.seats.fell(c.seat);
                } else {
                    c.need.seats.shareFell(t); // a line of limits: found by its tenant
                }
            }
        }
    }

    /** A tenant went below a guarantee or back, or reached a max or left it: each class it waits in takes note. */
    @Override
    public void standingChanged(Tenant t) {
        Set<WaitClass> waiting = byTenant.get(t);
        if (waiting != null) {
            for (WaitClass c : waiting) {
                c.need.seats.standingChanged(t);
            }
        }
    }

    /** Forgets a line whose tenant was forgotten (it has no waiting task): its tenant's name stands for a new one. */
    void forget(WaitClass c) {
        classes.remove(c.key(), c);
        classesRemoved();
    }

    /** After lines were forgotten: a table grown for many more is given back. */
    private void classesRemoved() {
        if (classesPeak.shrinkNow(classes.size())) {
            classes = new HashMap<>(classes);
        }
    }

    /** Whether enough empty classes piled up to be worth forgetting. */
    boolean sweepDue() {
        int empty = classes.size() - waitingClasses.size();
        return empty > KEEP_EMPTY && empty > 4 * waitingClasses.size();
    }

    /** Forgets the empty classes and returns them, for {@link Groups} to unlink. */
    List<WaitClass> sweep() {
        List<WaitClass> gone = new ArrayList<>();
        classes.values().removeIf(c -> {
            if (c.count == 0) {
                gone.add(c);
                return true;
            }
            return false;
        });
        classesRemoved();
        return gone;
    }

    /** Tasks waiting in all classes. */
    long waiting() {
        return waiting;
    }

    /** Reads a class's count and head back from the queue (when the scheduler loads). */
    void load(WaitClass c, long count) {
        WaitingQueue.Entry head = queue.first(c.key());
        if (head == null) {
            return; // only when the counts and the queue disagree: the queue holds the tasks
        }
        c.headPlace = head.place();
        c.headTaskId = head.taskId();
        c.shortestLeaseMs = 0; // its tasks' timeouts are not read when the scheduler loads
        count(c, count);
        headMoved(c);
    }

    void add(WaitClass c, Place place, String taskId) {
        if (c.count == 0 && c.limits() != null && classes.get(c.key()) != c) {
            classes.put(c.key(), c); // a line of limits that emptied a moment ago (a task moving ahead in it)
            c.need.addLine(c);
        }
        queue.add(new WaitingQueue.Entry(c.key(), place, taskId));
        if (c.count == 0 || place.before(c.headPlace)) {
            boolean open = c.count > 0 && c.need.close(c); // reopened in its new place
            c.headPlace = place;
            c.headTaskId = taskId;
            c.heldTold = null;
            if (open) {
                c.need.open(c);
            }
        }
        count(c, c.count + 1);
        headMoved(c);
    }

    /** Removes the head of a non-empty class's line and returns its task id. */
    String takeHead(WaitClass c) {
        String taskId = c.headTaskId;
        queue.remove(c.key(), c.headPlace);
        count(c, c.count - 1);
        refreshHead(c);
        return taskId;
    }

    /** The first {@code max} waiting tasks of a class's line, in line order. */
    java.util.List<WaitingQueue.Entry> first(WaitClass c, int max) {
        return c.count == 0 ? java.util.List.of() : queue.first(c.key(), max);
    }

    /** Removes one waiting task (cancelled, or moving to another place) from its class's line. */
    void remove(WaitClass c, Place place) {
        queue.remove(c.key(), place);
        count(c, c.count - 1);
        if (place.equals(c.headPlace)) {
            refreshHead(c);
        }
    }

    private void refreshHead(WaitClass c) {
        c.heldTold = null;
        boolean open = c.need.close(c); // reopened in its new place
        WaitingQueue.Entry head = c.count > 0 ? queue.first(c.key()) : null;
        if (head == null) {
            count(c, 0); // only when the queue lost entries behind our back
            c.headPlace = null;
            c.headTaskId = null;
        } else {
            c.headPlace = head.place();
            c.headTaskId = head.taskId();
            if (open) {
                c.need.open(c);
            }
        }
        headMoved(c);
    }

    /** Keeps its need's set of urgent heads true. */
    private static void headMoved(WaitClass c) {
        if (c.count > 0 && Ordering.urgent(c.headPlace)) {
            c.need.urgent.add(c);
        } else {
            c.need.urgent.remove(c);
        }
    }

    private void count(WaitClass c, long count) {
        if (count == 0) {
            c.shortestLeaseMs = Long.MAX_VALUE;
        }
        waiting += count - c.count;
        Need need = c.need;
        need.count += count - c.count;
        if (c.count == 0 && count > 0) {
            waitingClasses.add(c);
            waitingPeak.grew(waitingClasses.size());
            LinkedHashSet<WaitClass> ofTenant = byTenant.get(c.tenant);
            if (ofTenant == null) {
                tenants.waiting(c.tenant, true);
                ofTenant = new LinkedHashSet<>();
                byTenant.put(c.tenant, ofTenant);
            }
            ofTenant.add(c);
            need.waits(c);
            c.count = count;
            need.counted(c);
            if (c.limits() != null) {
                limits.lineJoined(c);
            }
            return;
        } else if (c.count > 0 && count == 0) {
            c.count = 0;
            need.counted(c);
            if (c.limits() != null) {
                limits.lineEmptied(c);
                // A line of limits is seldom used again (keys come and go): it goes at once, not at a sweep.
                classes.remove(c.key());
                classesRemoved();
                c.need.removeLine(c);
            }
            waitingClasses.remove(c);
            if (waitingPeak.shrinkNow(waitingClasses.size())) {
                waitingClasses = new LinkedHashSet<>(waitingClasses);
            }
            LinkedHashSet<WaitClass> ofTenant = byTenant.get(c.tenant);
            ofTenant.remove(c);
            if (ofTenant.isEmpty()) {
                byTenant.remove(c.tenant);
                tenants.waiting(c.tenant, false);
            }
            need.waitsNoMore(c);
            need.urgent.remove(c);
            if (need.count == 0) {
                need.reason = null;
            }
        }
        c.count = count;
    }
}
