package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Backfill of the slots a gang's reservation holds ({@link GangPlacer}): a held slot runs a waiting
 * single task only when that task is sure to be over before the gang is sure of all its slots, so a
 * reservation never idles a slot it could lend and never starts its gang later for lending it.
 */
final class GangBackfill {

    private final PoolModel m;
    private final Placement placement;
    /** Waiting tasks' lease lengths and fixed starts, by task id, as {@link #onHeldSlots} read them (a bounded cache). */
    private final Map<String, long[]> leases = new HashMap<>();

    GangBackfill(PoolModel m, Placement placement) {
        this.m = m;
        this.placement = placement;
    }

    /** Forgets what it read of waiting tasks: a task id may come back with another timeout. */
    void forget() {
        leases.clear();
    }

    /** How deep into each line backfill looks for a task short enough for a held slot. */
    static final int BACKFILL_DEPTH = 64;

    /**
     * Backfill: a slot held for the gang runs a waiting single task whose lease (its timeout, counted
     * from now or from its fixed start) is sure to end before both
     * <ul>
     *   <li>the gang is sure of all its slots: when enough of the attempts running where it goes will
     *       have reached the end of their leases ({@link #sureStart}), so the gang starts no later than
     *       those leases allow with the slot idle; and</li>
     *   <li>its reservation ends ({@link TimeRules#gangReservationMs} after it began), so a lent slot
     *       can hold the gang back by at most that much when the tasks it waits on end early.</li>
     * </ul>
     * Among the first {@link #BACKFILL_DEPTH} tasks of each line that may use the slot (its limits
     * admit its head, its tenant may take the slot), the one first in line order (priority, then age)
     * that is short enough takes it: a longer task ahead of it could not have used the slot anyway.
     * When too few of the running attempts have a lease, when the gang will start is not known, and its
     * held slots idle. A line whose every task is too long ({@link WaitClass#shortestLeaseMs}) is
     * passed over unread.
     */
    void onHeldSlots(GangPlacer.WaitingGang g, Instant at, List<Decision> out) {
        long now = at.toEpochMilli();
        GangPlacer.Reservation r = g.reservation;
        long bound = r.sinceMillis + m.rules.gangReservationMs();
        if (r.lastSureFleet == m.groups.fleetChanges) {
            bound = Math.min(bound, r.lastSure); // while its workers stay, when the gang is sure never moves later
        }
        if (bound <= now || !anyShortEnough(r, now, bound)) {
            return; // the common case: nothing waiting ends in time, and nothing more is worked out
        }
        long sure = sureStart(r);
        r.lastSure = sure;
        r.lastSureFleet = m.groups.fleetChanges;
        if (sure == Long.MAX_VALUE) {
            return; // when the gang would start is not known: nothing is sure to end before it
        }
        bound = Math.min(bound, sure);
        if (bound <= now) {
            return; // the gang is sure of its slots now (or its reservation ends): nothing ends before
        }
        for (Profile p : r.target.keySet()) {
            while (!p.removed && p.held > 0 && g.id.equals(p.reservedFor)) {
                WaitClass line = null;
                WaitingQueue.Entry best = null;
                for (Need n : p.needs) {
                    for (WaitClass c : n.waiting) {
                        if (!mayLend(c, p, now, bound) || best != null && !c.headPlace.before(best.place())) {
                            continue;
                        }
                        for (WaitingQueue.Entry e : m.classes.first(c, BACKFILL_DEPTH)) {
                            if (best != null && !e.place().before(best.place())) {
                                break;
                            }
                            if (leaseEnd(e.taskId(), now) < bound) {
                                best = e;
                                line = c;
                                break;
                            }
                        }
                    }
                }
                if (best == null) {
                    break;
                }
                TaskRecord task = m.store.task(best.taskId());
                String why = "backfilled on a slot held for gang " + g.id + ": this task's lease ends by "
                        + Instant.ofEpochMilli(leaseEnd(best.taskId(), now)) + ", before the gang can be sure of all its "
                        + "slots (" + Instant.ofEpochMilli(sure) + ", the leases of the tasks running there) and before "
                        + "its reservation ends (" + Instant.ofEpochMilli(r.sinceMillis + m.rules.gangReservationMs()) + ")";
                m.groups.hold(p, g.id, p.held - 1);
                m.lines.remove(task, line);
                placement.assignTo(task, p, p.pick(), at, why, null, out);
            }
        }
    }

    /** Whether a line of a profile with a held slot may lend it one of its tasks ending before {@code bound}. */
    private static boolean mayLend(WaitClass c, Profile p, long now, long bound) {
        return c.count > 0 && c.shortestLeaseMs < bound - now && c.blockedBy() == null && c.tenant.mayTake(p.labels());
    }

    /** Whether some line of a profile holding a slot for the reservation has a task that could end before {@code bound}. */
    private static boolean anyShortEnough(GangPlacer.Reservation r, long now, long bound) {
        for (Profile p : r.target.keySet()) {
            if (p.held > 0 && !p.removed) {
                for (Need n : p.needs) {
                    for (WaitClass c : n.waiting) {
                        if (mayLend(c, p, now, bound)) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /**
     * When the gang is sure to have all the slots it reserved: for each of its profiles short of idle
     * slots, when that many of the attempts running there will have reached the end of their leases;
     * the latest of those ({@link Long#MIN_VALUE} when none is short, {@link Long#MAX_VALUE} when too
     * few attempts have a lease). Each profile's figure is computed again only when its workers or
     * attempts changed ({@link Profile#changes}); a lease that moved since (an attempt that started)
     * only ends later, so the figure stays sure.
     */
    private long sureStart(GangPlacer.Reservation r) {
        long sure = Long.MIN_VALUE;
        for (Map.Entry<Profile, Integer> e : r.target.entrySet()) {
            Profile p = e.getKey();
            long[] known = r.sureOf.get(p);
            if (known == null || known[0] != p.changes || known[1] != e.getValue() - p.idle()) {
                known = new long[] {p.changes, e.getValue() - p.idle(), sureOn(p, e.getValue() - p.idle())};
                r.sureOf.put(p, known);
            }
            sure = Math.max(sure, known[2]);
        }
        return sure;
    }

    /** When {@code shortBy} of the attempts running on the profile will have reached the end of their leases. */
    private long sureOn(Profile p, long shortBy) {
        if (shortBy <= 0) {
            return Long.MIN_VALUE;
        }
        long[] ends = new long[p.busy];
        int n = 0;
        for (Worker w : p.actives()) {
            for (AttemptRef a : w.running()) {
                if (n < ends.length) {
                    ends[n++] = m.leases().endsAt(a.getTaskId());
                }
            }
        }
        if (n < shortBy) {
            return Long.MAX_VALUE;
        }
        Arrays.sort(ends, 0, n);
        return ends[(int) shortBy - 1];
    }

    /** When the lease of an attempt of this waiting task started at {@code now} would end, or {@link Long#MAX_VALUE} without a timeout. */
    private long leaseEnd(String taskId, long now) {
        long[] lease = leases.get(taskId);
        if (lease == null) {
            if (leases.size() >= 4_096) {
                leases.clear();
            }
            TaskSubmitted s = m.store.task(taskId).getTask();
            lease = new long[] {s.getTimeoutMs() == null ? -1 : s.getTimeoutMs(),
                    s.getStartAt() == null ? Long.MIN_VALUE : s.getStartAt().toEpochMilli()};
            leases.put(taskId, lease);
        }
        return lease[0] < 0 ? Long.MAX_VALUE : Math.max(now, lease[1]) + lease[0];
    }
}
