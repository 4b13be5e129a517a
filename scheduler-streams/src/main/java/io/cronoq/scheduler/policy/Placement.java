package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.time.TimeCauses;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.GangAssignment;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.policy.store.Place;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Where tasks go: a waiting task to the free slot it ranks first, a freed slot to the best-placed
 * waiting task it can serve, and what a task that still waits is told. Keeps the invariant every
 * input restores before it returns: no task waits while an ACTIVE worker that could run it has a
 * free slot. Its cost is the number of classes the freed slots serve, never the backlog.
 */
final class Placement {

    private final PoolModel m;
    /** Profiles that gained a free slot during the current input: their lines get a chance. */
    private final List<Profile> freed = new ArrayList<>();
    /** During {@link #settle}: the requirement classes whose lines may take a freed slot. */
    private final List<Need> needs = new ArrayList<>();
    /** During {@link #settle}: single lines that may take a slot (joined, or of a tenant its max released). */
    private final List<WaitClass> lines = new ArrayList<>();
    private final Choice choice = new Choice();
    /** During a pass of {@link #settle}: the first two seats of one requirement class ({@link TenantSeats#firstTwo}). */
    private final TenantSeats.Seat[] pick = new TenantSeats.Seat[2];
    /** At the end of {@link #settle}: the lines of tenants held to a max, to be told so. */
    private final List<WaitClass> capped = new ArrayList<>();
    /** Counts the calls of {@link #settle}, so a requirement class is listed once per call ({@link Need#settle}). */
    private long settles;
    /** During a pass of {@link #settle}: those of {@link #needs} with a free profile. */
    private final List<Need> free = new ArrayList<>();
    /** Slots freed by attempts that held concurrency keys, since the last {@link #settle}: see {@link #handOver}. */
    private final List<Handoff> handoffs = new ArrayList<>();

    /** A slot of {@code profile} freed by an attempt of {@code task} that held concurrency keys. */
    private record Handoff(Profile profile, TaskSubmitted task) {}

    /** What the tasks that still wait are told. */
    final Reasons reasons;
    /** The pool's gangs: placed whole before single tasks take what is free. */
    final Gangs gangs;
    /** Tasks that wait for their parents, released before freed slots are handed out. */
    final Dependencies dependencies;

    Placement(PoolModel model) {
        this.m = model;
        this.reasons = new Reasons(model);
        this.gangs = new Gangs(model, this);
        this.dependencies = new Dependencies(model, this);
    }

    /**
     * A task that may start now, from its submission or once its parents ended: it waits on a timer
     * when it may not start yet (not before, a fixed start's reservation), else it is placed.
     */
    void admit(TaskRecord task, Instant at, List<Decision> out) {
        TaskSubmitted in = task.getTask();
        Instant release = Ordering.releaseAt(in, m.rules);
        if (release != null && release.isAfter(at)) {
            String reason = in.getStartAt() != null
                    ? "fixed start at " + in.getStartAt() + ": the next matching slot is held for it from " + release
                    : "not before " + release;
            m.lines.delay(task, release, at, reason);
            out.add(Decision.journal(new TaskWaiting(in.getTaskId(), reason), null));
            return;
        }
        place(task, at, out);
    }

    /**
     * A new task that may run now: assigned to the free profile its preferences rank first when
     * its class has no line (a class with a line has no free profile, by the invariant, and a
     * newcomer never overtakes the line), else it joins the back of its class's line and is told why.
     */
    void place(TaskRecord task, Instant at, List<Decision> out) {
        TaskSubmitted in = task.getTask();
        m.limits.clock(at);
        WaitClass c = m.classOf(task);
        Object blocker = c.limits() == null ? null : c.count == 0 ? m.limits.blocker(c) : c.blockedBy();
        Profile p = c.count == 0 && blocker == null ? c.bestFreeProfile(in.getPreferences()) : null;
        if (p != null) {
            assignTo(task, p, p.pick(), at, null, null, out);
        } else {
            // It joins the back of the line: its place is the new count.
            String reason = blocker != null ? m.limits.reason(c, blocker) : reasons.reasonFor(c, c.count + 1);
            m.lines.enqueue(task, c, at, reason);
            out.add(Decision.journal(new TaskWaiting(in.getTaskId(), reason), null));
        }
        reasons.tellLimits(out);
    }

    /** A profile with a slot that just became free: its lines get a chance on the next {@link #settle}. */
    void offer(Profile profile) {
        freed.add(profile);
    }

    /**
     * Restores the invariant after slots freed ({@link #offer}) or tasks joined lines ({@code
     * joined}): repeatedly, among the classes that could have changed and that have a free profile
     * their tenant may take, the first by {@link #before} sends its head to the free profile it
     * ranks first. Only those classes are looked at: every other line already had no free profile
     * and still has none. (A tenant held by a max may take again once it holds less: after it freed a
     * slot its waiting classes are looked at too; and a head held by its max is told so.)
     */
    void settle(List<WaitClass> joined, Instant at, List<Decision> out) {
        if (!m.endedParents.isEmpty()) {
            dependencies.tellChildren(out); // children released by what ended take their place in line first
        }
        m.limits.clock(at);
        m.limits.refill(); // a bucket refilled since the last tick reopens its lines now
        if (gangs.anyWaiting()) {
            gangs.placeWaiting(at, out); // a gang that fits now goes first: it needs all its slots at once
        }
        needs.clear();
        settles++;
        for (int i = 0; i < freed.size(); i++) {
            Profile p = freed.get(i);
            if (!p.removed) {
                for (Need n : p.needs) {
                    if (!n.waiting.isEmpty() && n.settle != settles) {
                        n.settle = settles;
                        needs.add(n); // its tenants' lines that have tasks are looked at
                    }
                }
            }
        }
        freed.clear();
        lines.clear();
        lines.addAll(joined);
        if (m.tenants.anyReleased()) {
            for (Tenant t : m.tenants.takeReleased()) {
                lines.addAll(m.classes.waitingOf(t));
            }
        }
        m.limits.drainOpened(lines); // their limits admit their head again
        for (int i = 0; i < handoffs.size(); i++) {
            handOver(handoffs.get(i), at, out);
        }
        handoffs.clear();
        while (true) {
            choice.clear();
            free.clear();
            for (int i = 0; i < needs.size(); i++) {
                Need n = needs.get(i);
                if (!n.freeProfiles.isEmpty()) { // else none of its lines can take a slot
                    free.add(n);
                }
            }
            if (free.isEmpty() && lines.isEmpty()) {
                break; // no freed slot is left, and no single line to look at
            }
            // Urgent heads, tenants below a guarantee, and single lines (joined, or released by a max)...
            boolean guarantees = m.tenants.anyGuarantee();
            for (int i = 0; i < free.size(); i++) {
                Need n = free.get(i);
                if (!n.urgent.isEmpty()) {
                    for (WaitClass c : n.urgent) {
                        if (c.servable()) {
                            consider(c);
                        }
                    }
                }
                if (guarantees) {
                    TenantSeats seats = n.seats;
                    for (int k = 0; k < seats.deficitCount(); k++) {
                        WaitClass c = seats.deficitSeat(k).line();
                        if (c != null && c.servable() && c.hasDeficitProfile()) {
                            consider(c);
                        }
                    }
                }
            }
            for (int i = 0; i < lines.size(); i++) {
                WaitClass c = lines.get(i);
                if (c.servable()) {
                    consider(c);
                }
            }
            // ...then the tenants by share, smallest first (ties by name): the first with a line a free slot
            // can serve, and the next such one (what the slot passed over, if its head waited longer).
            if (!free.isEmpty()) {
                considerFirstTenants();
            }
            WaitClass best = choice.best;
            if (best == null) {
                break;
            }
            TaskRecord task = m.store.task(best.headTaskId);
            Profile profile = choice.tier == 1 ? best.bestDeficitProfile(task.getTask().getPreferences())
                    : best.bestFreeProfile(task.getTask().getPreferences());
            WaitClass passedOver = choice.passedOver();
            String why = passedOver == null ? null
                    : m.tenants.whyChosen(best.tenant, choice.tier, profile.labels(), passedOver.tenant);
            String held = passedOver != null && choice.tier == 1 ? best.tenant.heldFor(profile.labels()) : null;
            m.classes.takeHead(best);
            assignTo(task, profile, profile.pick(), at, why, null, out);
            if (held != null && passedOver.count > 0) {
                reasons.tell(passedOver, held, out); // it would have had the slot, but for the guarantee
            }
        }
        if (gangs.anyWaiting()) {
            gangs.placeAfterTheirTurn(at, out); // a gang that let a smaller share go first may fit in what is left
        }
        // The lines a max still holds are told so (only the lines of tenants held to a max can be).
        for (int i = 0; i < needs.size(); i++) {
            Need n = needs.get(i);
            if (n.freeProfiles.isEmpty()) {
                continue; // every slot it could use was taken: no max holds a line of it back now
            }
            TenantSeats seats = n.seats;
            for (int k = 0; k < seats.cappedCount(); k++) {
                WaitClass c = seats.cappedSeat(k).line();
                if (c != null && reasons.untoldHeldByMax(c)) {
                    capped.add(c);
                }
            }
        }
        if (capped.size() > 1) {
            capped.sort(Placement::byTenantThenPlace); // the same words in the same order, however the seats lie
        }
        for (int i = 0; i < capped.size(); i++) {
            reasons.tellHeldByMax(capped.get(i), out);
        }
        capped.clear();
        for (int i = 0; i < lines.size(); i++) {
            reasons.tellHeldByMax(lines.get(i), out);
        }
        needs.clear();
        lines.clear();
        reasons.tellLimits(out);
    }

    /**
     * The line a freed slot serves first so far in one pass of {@link #settle}, and the considered
     * lines whose heads waited longest, of two tenants: what the slot passed over, if it waited
     * longer than the chosen one, is read from them at the end, so the order lines are looked at in
     * never changes the words.
     */
    private static final class Choice {
        WaitClass best;
        int tier;
        double share;
        /** The considered line whose head waited longest, and the one that did of another tenant. */
        WaitClass oldest;
        WaitClass oldestOfOther;

        void clear() {
            best = null;
            oldest = null;
            oldestOfOther = null;
        }

        void sawHead(WaitClass c) {
            if (oldest == null || c.headPlace.before(oldest.headPlace)) {
                if (oldest != null && oldest.tenant != c.tenant) {
                    oldestOfOther = oldest;
                }
                oldest = c;
            } else if (c.tenant != oldest.tenant
                    && (oldestOfOther == null || c.headPlace.before(oldestOfOther.headPlace))) {
                oldestOfOther = c;
            }
        }

        /** A line of another tenant than the best's whose head waited longer than the best's head, or {@code null}. */
        WaitClass passedOver() {
            WaitClass other = oldest.tenant != best.tenant ? oldest : oldestOfOther;
            return other != null && other.headPlace.before(best.headPlace) ? other : null;
        }
    }

    /** Weighs a servable line against the best of this pass ({@link #before}). */
    private void consider(WaitClass c) {
        int tier = tier(c);
        double share = tier == 2 ? c.tenant.rankedShare() : 0;
        WaitClass best = choice.best;
        if (best == null || best != c && before(c, tier, share, best, choice.tier, choice.share)) {
            choice.best = c;
            choice.tier = tier;
            choice.share = share;
        }
        choice.sawHead(c);
    }

    /**
     * Considers the lines, in every free requirement class, of the first two tenants by share that
     * have a line a free slot can serve: each class's seats yield their first two
     * ({@link TenantSeats#firstTwo}), and the first two of those are the pool's.
     */
    private void considerFirstTenants() {
        Tenant first = null;
        Tenant second = null;
        for (int i = 0; i < free.size(); i++) {
            int found = free.get(i).seats.firstTwo(pick);
            for (int k = 0; k < found; k++) {
                Tenant t = pick[k].tenant;
                if (t == first || t == second) {
                    continue;
                }
                if (first == null || Tenants.byShare(t, first) < 0) {
                    second = first;
                    first = t;
                } else if (second == null || Tenants.byShare(t, second) < 0) {
                    second = t;
                }
            }
        }
        for (Tenant t = first; t != null; t = t == first ? second : null) {
            for (int i = 0; i < free.size(); i++) {
                TenantSeats.Seat seat = free.get(i).seats.of(t);
                if (seat != null && seat.servable()) {
                    consider(seat.line());
                }
            }
        }
    }

    /** The order in which lines held to a max are told so: by tenant name, then head place. */
    private static int byTenantThenPlace(WaitClass a, WaitClass b) {
        int c = a.tenant.name().compareTo(b.tenant.name());
        return c != 0 ? c : a.headPlace.compareTo(b.headPlace);
    }

    /**
     * Which of two servable classes a freed slot serves first: a head whose fixed start or near
     * deadline made it urgent (tier 0) keeps the guarantees of time; then a tenant below its
     * guarantee on a free profile (tier 1); then (tier 2) the tenant with the smallest dominant share
     * over its weight, so slots go to tenants in proportion to their weights, equal shares to the
     * tenant first by name (it then holds more, so the next tie goes to another); the place in line
     * decides the rest, and so decides alone between the classes of one tenant.
     */
    private static boolean before(WaitClass c, int tier, double share, WaitClass best, int bestTier, double bestShare) {
        if (tier != bestTier) {
            return tier < bestTier;
        }
        if (tier == 2 && c.tenant != best.tenant) {
            return share != bestShare ? share < bestShare : c.tenant.name().compareTo(best.tenant.name()) < 0;
        }
        return c.headPlace.before(best.headPlace);
    }

    private int tier(WaitClass c) {
        if (Ordering.urgent(c.headPlace)) {
            return 0;
        }
        return m.tenants.anyGuarantee() && c.hasDeficitProfile() ? 1 : 2;
    }

    /** {@link #settle} after slots freed, with no task joining a line. */
    void settle(Instant at, List<Decision> out) {
        settle(List.of(), at, out);
    }

    /**
     * Puts tasks (already set back to WAITING) into their lines at their original order, lets
     * {@link #settle} place what it can, and says why each remaining one waits. After a worker
     * registered, drained or left ({@code touched}: the requirement classes its profiles served, else
     * {@code null}), recomputes the reason of those classes and of every class no worker can run,
     * and journals, for each class whose reason changed, one {@code TaskWaiting} for the head of each
     * of its tenants' lines.
     */
    void requeue(List<TaskRecord> tasks, Instant at, List<Decision> out, LinkedHashSet<Need> touched) {
        m.limits.clock(at);
        List<WaitClass> joined = new ArrayList<>(tasks.size());
        for (TaskRecord task : tasks) {
            WaitClass c = m.classOf(task);
            m.lines.enqueue(task, c, at, null);
            joined.add(c);
        }
        settle(joined, at, out);
        reasons.tellRequeued(tasks, joined, touched, out);
    }

    /**
     * Gives the task's next attempt to worker {@code w} of the profile (which has a free slot; a
     * single task takes the profile's preferred worker, {@link Profile#pick}); {@code why}, when not
     * null, says why its tenant was chosen over another; {@code gang}, when not null, is the gang the
     * attempt belongs to, told to its worker.
     */
    void assignTo(TaskRecord task, Profile profile, Worker w, Instant at, String why, GangAssignment gang,
                  List<Decision> out) {
        String id = task.getTask().getTaskId();
        int number = task.getAttempts().size() + 1;
        Map<String, String> labels = profile.labels().asMap();
        task.getAttempts().add(new AttemptRecord(number, w.id(), w.generation(), labels, at, null, null, null, null));
        task.setState(TaskState.ASSIGNED);
        task.setWaitingReason(null);
        task.setWaitingSince(null);
        task.setQueuedAt(null);
        task.setUpdatedAt(at);
        m.lines.dropTimer(task);
        m.store.putTask(task);
        m.leases().track(task);
        TaskSubmitted s = task.getTask();
        m.groups.assign(w, new AttemptRef(id, number, s.getTenant(), gpusOf(task), s.getConcurrency()), m.nextSequence());
        m.store.putWorker(w.record);
        if (!s.getRateLimits().isEmpty()) {
            m.limits.consume(s.getRateLimits());
        }
        Instant startAt = s.getStartAt() != null && s.getStartAt().isAfter(at) ? s.getStartAt() : null;
        String cause = startAt != null ? "fixed start at " + startAt + ": the slot is held for it until then"
                : s.getStartAt() != null ? TimeCauses.startVerdict(s, at, "assigned", m.rules.startToleranceMs())
                : TimeCauses.lateness(s, at, "assigned");
        if (why != null) {
            cause = cause == null ? why : cause + "; " + why;
        }
        out.add(Decision.journalAndNotify(new AttemptAssigned(id, m.pool, number, w.id(), w.generation(), labels,
                s.getPayload(), s.getDeadline(), s.getTimeoutMs(), at, startAt, gang,
                s.getAfter().isEmpty() ? new java.util.HashMap<>() : m.store.dependencies().parentResults(id)), w.id(), cause));
    }

    /** The GPUs a task requested: what its attempt counts against its tenant's share besides the slot. */
    private static int gpusOf(TaskRecord task) {
        TaskSubmitted s = task.getTask();
        return s.getResources() == null || s.getResources().getGpu() == null ? 0 : Math.max(0, s.getResources().getGpu());
    }

    /**
     * A slot freed by an attempt that held concurrency keys goes first to the next waiting task that
     * holds one of those keys, when its limits now admit it and it can run on that slot (its tenant
     * may take it): the key and the slot pass on together, so keyed work goes on at its limit. Among
     * such lines, the head that comes first in line order takes it.
     */
    private void handOver(Handoff h, Instant at, List<Decision> out) {
        Profile p = h.profile();
        if (p.removed || p.free() == 0) {
            return;
        }
        WaitClass best = null;
        String via = null;
        for (io.cronoq.events.ConcurrencyKey k : h.task().getConcurrency()) {
            for (WaitClass c : m.limits.linesHolding(k.getKey())) {
                if (c.blockedBy() == null && c.count > 0 && c.need.freeProfiles.contains(p) && c.tenant.mayTake(p.labels())
                        && (best == null || c.headPlace.before(best.headPlace))) {
                    best = c;
                    via = k.getKey();
                }
            }
        }
        if (best != null) {
            TaskRecord next = m.store.task(best.headTaskId);
            m.classes.takeHead(best);
            assignTo(next, p, p.pick(), at, "task " + h.task().getTaskId() + " freed this slot and concurrency key " + via
                    + ": both go to the next task holding the key", null, out);
        }
    }

    /**
     * Frees the slot of an attempt that just ended; an ACTIVE worker's freed slot is offered on
     * settle, first to the next task holding one of its keys ({@link #handOver}) unless {@code
     * handOver} is false (a slot taken back for a tenant below its guarantee goes to that tenant).
     */
    void release(TaskRecord task, AttemptRecord attempt, boolean handOver) {
        m.leases().end(task.getTask().getTaskId());
        Worker w = m.workers.get(attempt.getWorkerId());
        if (w == null || !w.live() || w.generation() != attempt.getGeneration()) {
            return; // a current attempt is always held by its live worker; nothing to free otherwise
        }
        m.groups.release(w, task.getTask().getTaskId(), attempt.getAttempt());
        m.store.putWorker(w.record);
        if (w.active()) {
            offer(w.profile());
            if (handOver && !task.getTask().getConcurrency().isEmpty()) {
                handoffs.add(new Handoff(w.profile(), task.getTask()));
            }
        }
    }
}
