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
     * Backfill: a slot held for the gang runs a waiting single task that is sure to be over before the
     * gang is sure to have all its slots, so the gang starts no later than it would have with the slot
     * idle. The gang is sure of its slots once enough of the attempts running where it goes have
     * reached the end of their leases ({@link #sureStart}); a task whose own lease (its timeout,
     * counted from now or from its fixed start) ends by then may take a held slot. Among the first
     * {@link #BACKFILL_DEPTH} tasks of each line that may use the slot (its limits admit its head, its
     * tenant may take the slot), the one first in line order (priority, then age) that is short enough
     * takes it: a longer task ahead of it could not have used the slot anyway. When too few of the
     * running attempts have a lease, when the gang will start is not known, and its held slots idle.
     */
    void onHeldSlots(GangPlacer.WaitingGang g, Instant at, List<Decision> out) {
        long now = at.toEpochMilli();
        long sure = sureStart(g.reservation);
        if (sure == Long.MAX_VALUE || sure <= now) {
            return;
        }
        for (Profile p : g.reservation.target.keySet()) {
            while (!p.removed && p.held > 0 && g.id.equals(p.reservedFor)) {
                WaitClass line = null;
                WaitingQueue.Entry best = null;
                for (Need n : p.needs) {
                    for (WaitClass c : n.waiting) {
                        if (c.count == 0 || c.blockedBy() != null || !c.tenant.mayTake(p.labels())
                                || best != null && !c.headPlace.before(best.place())) {
                            continue;
                        }
                        for (WaitingQueue.Entry e : m.classes.first(c, BACKFILL_DEPTH)) {
                            if (best != null && !e.place().before(best.place())) {
                                break;
                            }
                            if (leaseEnd(e.taskId(), now) <= sure) {
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
                String why = "backfilled on a slot held for gang " + g.id + ", which cannot be sure of all its slots before "
                        + Instant.ofEpochMilli(sure) + " (the leases of the tasks running there); this task's lease ends by "
                        + Instant.ofEpochMilli(leaseEnd(best.taskId(), now));
                m.groups.hold(p, g.id, p.held - 1);
                m.lines.remove(task, line);
                placement.assignTo(task, p, p.pick(), at, why, null, out);
            }
        }
    }

    /**
     * When the gang is sure to have all the slots it reserved: for each of its profiles short of idle
     * slots, when that many of the attempts running there will have reached the end of their leases;
     * the latest of those ({@link Long#MIN_VALUE} when none is short, {@link Long#MAX_VALUE} when too
     * few attempts have a lease). Computed again only when the profiles' workers or attempts changed.
     */
    private long sureStart(GangPlacer.Reservation r) {
        long stamp = 0;
        for (Profile p : r.target.keySet()) {
            stamp += p.changes;
        }
        if (stamp == r.sureStamp) {
            return r.sureStart; // a lease that moved since (an attempt that started) only ends later: still sure
        }
        long sure = Long.MIN_VALUE;
        for (Map.Entry<Profile, Integer> e : r.target.entrySet()) {
            Profile p = e.getKey();
            int shortBy = e.getValue() - p.idle();
            if (shortBy <= 0) {
                continue;
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
                sure = Long.MAX_VALUE;
                break;
            }
            Arrays.sort(ends, 0, n);
            sure = Math.max(sure, ends[shortBy - 1]);
        }
        r.sureStart = sure;
        r.sureStamp = stamp;
        return sure;
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
