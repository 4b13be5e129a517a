package io.cronoq.scheduler.policy;

import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.store.Place;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What a waiting task is told: why it waits (its limits, its tenant's max, else the workers' side:
 * busy slots or no worker that could run it), and when the head of a line is told again. A
 * requirement class's reason ({@link WaitReason}) is kept on its {@link Need}, computed when first
 * needed and recomputed only after a worker change; a head is told only what differs from what it
 * was told, so the journal grows by one entry per change, never by the backlog.
 */
final class Reasons {

    private final PoolModel m;

    Reasons(PoolModel model) {
        this.m = model;
    }

    /**
     * Tells the head of each line whose limits began, or stopped, holding it back since its head was
     * told (a key filled or freed, a bucket emptied or refilled, an admin's change) why it waits now.
     * A line held back and admitted again within one input is told nothing.
     */
    void tellLimits(List<Decision> out) {
        if (!m.limits.anyChanged()) {
            return;
        }
        for (WaitClass c : m.limits.takeChanged()) {
            if (c.count == 0 || !c.retold()) {
                continue;
            }
            if (c.blockedBy() != null) {
                tell(c, m.limits.reason(c, c.blockedBy()), out);
            } else if (Limits.isLimitReason(m.store.task(c.headTaskId).getWaitingReason())) {
                tell(c, reasonFor(c, 1), out);
            }
        }
    }

    /**
     * Why the task at {@code place} in a line waits: what its limits hold it back by, else its
     * tenant's max, else the workers' side (busy slots, or no worker that could run it).
     */
    String reasonFor(WaitClass c, long place) {
        if (c.blockedBy() != null) {
            return m.limits.reason(c, c.blockedBy());
        }
        String held = heldByMax(c);
        return held != null ? held : reasonOf(c.need).forPlace(place);
    }

    /** A class with a free profile its tenant's max keeps it from: why, in words; else {@code null}. */
    String heldByMax(WaitClass c) {
        if (!c.tenant.atAnyMax() || c.blockedBy() != null || c.need.freeProfiles.isEmpty()
                || c.need.anyFreeFor(c.tenant)) {
            return null; // no max holds it, or a free profile it may take: not held
        }
        Tenant.Quota q = c.tenant.maxFor(c.need.freeProfiles.iterator().next().labels());
        return "tenant " + c.tenant.name() + " at its max: " + q.use(q.max);
    }

    /**
     * After a max was raised or removed: the head of each line that was told its tenant's max held
     * it, and that still waits for another reason, is told that reason instead.
     */
    void retellReleased(Collection<WaitClass> classes, List<Decision> out) {
        for (WaitClass c : classes) {
            if (c.count == 0 || c.blockedBy() != null || heldByMax(c) != null) {
                continue;
            }
            TaskRecord head = m.store.task(c.headTaskId);
            String told = head.getWaitingReason();
            if (told != null && told.startsWith("tenant " + c.tenant.name() + " at its max")) {
                tell(c, reasonOf(c.need).forPlace(1), out);
            }
        }
    }

    /** Tells the head of a line why it waits, unless it was told just that. */
    void tell(WaitClass c, String reason, List<Decision> out) {
        c.heldTold = null;
        TaskRecord head = m.store.task(c.headTaskId);
        if (!reason.equals(head.getWaitingReason())) {
            head.setWaitingReason(reason);
            m.store.putTask(head);
            out.add(Decision.journal(new TaskWaiting(c.headTaskId, reason), null));
        }
    }

    /**
     * Whether the head of a line held only by its tenant's max still has to be told so: it waits, its
     * tenant is at a max, it was not told since it became the head, and the max holds it now.
     */
    boolean untoldHeldByMax(WaitClass c) {
        return mayBeUntoldHeld(c) && heldByMax(c) != null;
    }

    /** Whether the line's head waits, was not told since it became the head that a max holds it, and its tenant is at one. */
    private static boolean mayBeUntoldHeld(WaitClass c) {
        return c.count > 0 && c.headTaskId != c.heldTold && c.tenant.atAnyMax();
    }

    /** Tells the head of a line held only by its tenant's max why it waits, when it was told otherwise. */
    void tellHeldByMax(WaitClass c, List<Decision> out) {
        String held = mayBeUntoldHeld(c) ? heldByMax(c) : null;
        if (held != null) {
            tell(c, held, out);
            c.heldTold = c.headTaskId;
        }
    }

    /**
     * Recomputes the reasons of the waiting classes a worker change touched, plus every waiting
     * class no ACTIVE worker can run (their reason counts every worker of the pool); returns those
     * whose reason changed, head oldest first. A class that was empty before has no reason to
     * change from: its tasks are being told theirs.
     */
    private List<Need> recomputeReasons(LinkedHashSet<Need> touched) {
        for (WaitClass c : m.classes.waitingClasses()) {
            if (c.need.capacity == 0) {
                touched.add(c.need);
            }
        }
        List<Need> changed = new ArrayList<>();
        for (Need n : touched) {
            if (n.count == 0) {
                continue;
            }
            WaitReason before = n.reason;
            n.reason = WaitReason.of(m.pool, n, m.groups.view());
            if (before != null && !before.equals(n.reason)) {
                changed.add(n);
            }
        }
        changed.sort(Comparator.comparing(Reasons::oldestHead));
        return changed;
    }

    private static Place oldestHead(Need n) {
        Place oldest = null;
        for (WaitClass c : n.waiting) {
            if (oldest == null || c.headPlace.before(oldest)) {
                oldest = c.headPlace;
            }
        }
        return oldest;
    }

    /** The reason of a requirement class with waiting tasks (or about to have one), computed if not known. */
    WaitReason reasonOf(Need n) {
        if (n.reason == null) {
            n.reason = WaitReason.of(m.pool, n, m.groups.view());
        }
        return n.reason;
    }

    /**
     * Makes sure every waiting class knows its reason before a worker change, so the change can be
     * told apart from what held before (after loading, reasons are computed when first needed).
     */
    void ensureReasons() {
        for (WaitClass c : m.classes.waitingClasses()) {
            reasonOf(c.need);
        }
    }

    /**
     * Says why each re-queued task that still waits (and was not told by settle) waits; after a
     * worker change ({@code touched}: the requirement classes its profiles served, else {@code
     * null}), recomputes the reasons of those classes and of every class no worker can run, and
     * journals, for each class whose reason changed, one {@code TaskWaiting} for the head of each of
     * its tenants' lines ({@link Placement#requeue}).
     */
    void tellRequeued(List<TaskRecord> tasks, List<WaitClass> joined, LinkedHashSet<Need> touched, List<Decision> out) {
        List<Need> changed = touched == null ? List.of() : recomputeReasons(touched);
        HashSet<String> told = new HashSet<>();
        for (int i = 0; i < tasks.size(); i++) {
            TaskRecord now = m.store.task(tasks.get(i).getTask().getTaskId());
            // Waiting, and not told why by settle already (a slot held for a tenant below its guarantee).
            if (now.getState() == TaskState.WAITING && now.getWaitingReason() == null) {
                WaitClass c = joined.get(i);
                String id = now.getTask().getTaskId();
                String reason = c.blockedBy() != null ? m.limits.reason(c, c.blockedBy())
                        : id.equals(c.headTaskId) ? reasonOf(c.need).forPlace(1) : reasonOf(c.need).backInLine(c.count);
                now.setWaitingReason(reason);
                m.store.putTask(now);
                out.add(Decision.journal(new TaskWaiting(id, reason), null));
                told.add(id);
            }
        }
        for (Need n : changed) {
            for (WaitClass c : n.waiting) {
                if (c.blockedBy() == null && !told.contains(c.headTaskId)) {
                    tell(c, n.reason.forPlace(1), out);
                }
            }
        }
    }
}
