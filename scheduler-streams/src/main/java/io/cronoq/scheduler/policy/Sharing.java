package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How a pool is shared between tenants, as decisions: an admin's change of a tenant's weight and
 * quotas or of the pool's preemption ({@code SharingPolicySet}), and preemption itself. A tenant
 * below its guarantee in a scope, whose first waiting task there has waited the pool's grace while
 * no slot it could use came free, takes one back: the newest attempt that another tenant holds
 * there beyond its own guarantee (borrowed) is revoked ({@code AttemptRevoked} to its worker),
 * ended as PREEMPTED (which spends none of its task's attempts), and its task goes back to its
 * place in line; the freed slot goes to the tenant below its guarantee ({@link Placement#settle}).
 * The grace counts on the scheduler's own clock, from when it saw the task start waiting
 * ({@link PoolModel#queuedAt}), so a producer's clock neither hastens nor delays a preemption.
 */
final class Sharing {

    private final PoolModel m;
    private final Placement placement;
    private final Leaves leaves;

    Sharing(PoolModel model, Placement placement, Leaves leaves) {
        this.m = model;
        this.placement = placement;
        this.leaves = leaves;
    }

    /**
     * A change of the pool's sharing policy: journaled, stored, what every tenant holds counted
     * again under the new quotas, and every waiting line looked at again (a raised max or a new
     * guarantee may place tasks at once).
     */
    List<Decision> set(SharingPolicySet in, Instant at) {
        List<Decision> out = new ArrayList<>(2);
        if (m.admission.refused("SharingPolicySet", SharingRules.check(in), in.getPool(), null, null, out)) {
            return out;
        }
        out.add(Decision.journal(in, null));
        m.rememberPool();
        m.tenants.apply(in);
        if (in.getQuotas() != null) {
            m.groups.countQuotas(m.tenants.get(in.getTenant()), m.workers.values());
        }
        m.store.putSharing(m.tenants.record());
        List<WaitClass> waiting = new ArrayList<>(m.classes.waitingClasses());
        placement.settle(waiting, at, out);
        placement.reasons.retellReleased(waiting, out);
        return out;
    }

    // ---- preemption ---------------------------------------------------------------------------

    /**
     * Preempts, for each tenant below a guarantee whose waiting grace is over, borrowed attempts
     * until it holds its guarantee or none is left to take; see the class comment.
     */
    void preempt(Instant now, List<Decision> out) {
        if (!m.tenants.preemption() || !m.tenants.anyGuarantee()) {
            return;
        }
        // A copy: a tenant that takes a slot back leaves the set of those below a guarantee.
        for (Tenant t : new ArrayList<>(m.tenants.belowGuarantee())) {
            if (m.classes.waitingOf(t).isEmpty()) {
                continue;
            }
            for (Tenant.Quota q : t.quotas()) {
                while (q.belowGuarantee()) {
                    WaitClass starved = starved(t, q, now);
                    Victim victim = starved == null ? null : victim(t, q, starved);
                    if (victim == null) {
                        break;
                    }
                    int before = q.inUse();
                    take(victim, t, q, now, out);
                    if (q.inUse() <= before) {
                        break; // the freed slot went elsewhere: do not take another for nothing
                    }
                }
            }
        }
    }

    /**
     * The earliest time a tick would preempt for a tenant below its guarantee, or
     * {@link Long#MAX_VALUE}: for simulations, which tick exactly when something is due.
     */
    long nextMillis() {
        if (!m.tenants.preemption() || !m.tenants.anyGuarantee()) {
            return Long.MAX_VALUE;
        }
        long next = Long.MAX_VALUE;
        for (Tenant t : m.tenants.belowGuarantee()) {
            for (Tenant.Quota q : t.quotas()) {
                if (q.belowGuarantee()) {
                    for (WaitClass c : m.classes.waitingOf(t)) {
                        if (canRunIn(c, q)) {
                            next = Math.min(next, queuedAt(c) + m.tenants.preemptionGraceMs());
                        }
                    }
                }
            }
        }
        return next;
    }

    /** The tenant's waiting class that can run in the quota's scope whose head waited the grace, oldest head first. */
    private WaitClass starved(Tenant t, Tenant.Quota q, Instant now) {
        WaitClass oldest = null;
        for (WaitClass c : m.classes.waitingOf(t)) {
            if (canRunIn(c, q) && queuedAt(c) + m.tenants.preemptionGraceMs() <= now.toEpochMilli()
                    && (oldest == null || c.headPlace.before(oldest.headPlace))) {
                oldest = c;
            }
        }
        return oldest;
    }

    /** Whether the line's limits admit its head and a worker of the quota's scope could run it. */
    private static boolean canRunIn(WaitClass c, Tenant.Quota q) {
        if (c.blockedBy() != null) {
            return false; // a slot taken back for it would stay idle
        }
        for (Profile p : c.need.profiles) {
            if (p.labels().includes(q.scope) && p.capacity > 0 && c.tenant.mayTake(p.labels())) {
                return true;
            }
        }
        return false;
    }

    /** Since when the class's head waits, on the scheduler's own clock: where its grace counts from. */
    private long queuedAt(WaitClass c) {
        return PoolModel.queuedAt(m.store.task(c.headTaskId)).toEpochMilli();
    }

    private record Victim(TaskRecord task, AttemptRecord attempt, Worker worker, Tenant tenant) {}

    /**
     * The newest attempt on an ACTIVE worker in the quota's scope that could run the starved class,
     * held by another tenant beyond its own guarantee there; ties go to the later submission.
     */
    private Victim victim(Tenant t, Tenant.Quota q, WaitClass starved) {
        Victim newest = null;
        Victim newestGang = null;
        List<Worker> workers = new ArrayList<>(m.workers.values());
        workers.sort(Comparator.comparing(Worker::id));
        for (Worker w : workers) {
            Profile p = w.profile();
            if (!w.active() || p == null || !starved.need.profiles.contains(p) || !p.labels().includes(q.scope)) {
                continue;
            }
            LabelSet labels = p.labels();
            for (AttemptRef ref : w.running()) {
                Tenant holder = m.tenants.get(ref.getTenant());
                if (holder == t || !holder.borrowsOn(labels)) {
                    continue;
                }
                TaskRecord task = m.store.task(ref.getTaskId());
                AttemptRecord attempt = PoolModel.currentAttempt(task);
                if (task.getTask().getGang() != null) {
                    // A gang is preempted whole or not at all, and only when no single attempt is borrowed.
                    if ((newestGang == null || newer(task, attempt, newestGang)) && placement.gangs.running(task)) {
                        newestGang = new Victim(task, attempt, w, holder);
                    }
                } else if (newest == null || newer(task, attempt, newest)) {
                    newest = new Victim(task, attempt, w, holder);
                }
            }
        }
        return newest != null ? newest : newestGang;
    }

    private static boolean newer(TaskRecord task, AttemptRecord attempt, Victim than) {
        int c = attempt.getAssignedAt().compareTo(than.attempt().getAssignedAt());
        return c != 0 ? c > 0 : task.getSequence() > than.task().getSequence();
    }

    private void take(Victim v, Tenant t, Tenant.Quota q, Instant now, List<Decision> out) {
        TaskRecord task = v.task();
        AttemptRecord attempt = v.attempt();
        String id = task.getTask().getTaskId();
        String why = "preempted for tenant " + t.name() + ", below its guarantee (" + q.use(q.guaranteed) + ") for "
                + Durations.words(m.tenants.preemptionGraceMs()) + " or more; tenant " + v.tenant().name()
                + " borrowed this slot";
        if (task.getTask().getGang() != null) {
            placement.gangs.preempt(task, why + " (its gang is taken back whole)", now, out);
            placement.settle(now, out);
            return;
        }
        out.add(Decision.journalAndNotify(new AttemptRevoked(id, m.pool, attempt.getAttempt(), attempt.getWorkerId(),
                attempt.getGeneration(), why, now), attempt.getWorkerId(), null));
        PoolModel.end(attempt, AttemptOutcome.PREEMPTED, why, now);
        placement.release(task, attempt, false);
        out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(),
                AttemptOutcome.PREEMPTED, TaskState.WAITING, why), "a preempted attempt spends none of its task's attempts"));
        task.setState(TaskState.WAITING);
        leaves.ended(attempt, now, out);
        placement.requeue(List.of(task), now, out, null);
    }
}
