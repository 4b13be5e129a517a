package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.time.RetryRule;
import io.cronoq.scheduler.policy.time.Leases;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Durations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What time brings to one pool, decided when the policy is told the time: evictions of silent
 * workers, the end of leave graces ({@link Leaves}), the end of leases, timers (a delayed task
 * joining its line, a near deadline moving a task ahead), retention, and the retry or failure of
 * an attempt that ended badly. The policy reads no clock: the time it is told is the time of every
 * decision here.
 */
final class PoolTime {

    /** Timers fired per tick at most, so one tick stays short; the rest fire on the next. */
    private static final int TIMERS_PER_TICK = 10_000;

    private final PoolModel m;
    private final Placement placement;
    private final Departures departures;
    private final Leaves leaves;
    private final Sharing sharing;
    /** The time of the first tick since this scheduler loaded: silence from before it evicts no one. */
    private Instant watchingSince;

    PoolTime(PoolModel model, Placement placement, Departures departures, Leaves leaves, Sharing sharing) {
        this.m = model;
        this.sharing = sharing;
        this.placement = placement;
        this.departures = departures;
        this.leaves = leaves;
    }

    /**
     * Evictions, then leave graces, leases, timers and retention, then freed slots (and rate
     * limits' refills) go to the waiting tasks, then tenants below their guarantee take borrowed slots back ({@link Sharing});
     * see {@link PoolScheduler#tick}.
     */
    List<Decision> tick(Instant now) {
        List<Decision> out = new ArrayList<>();
        if (watchingSince == null) {
            watchingSince = now;
        }
        evictSilentWorkers(now, out);
        leaves.expire(now, out);
        revokeExpiredLeases(now, out);
        fireTimers(now, out);
        m.retention.expire(now, TIMERS_PER_TICK, out);
        placement.dependencies.expireAwaited(now, out);
        placement.settle(now, out); // rate limits refill first (Limits#refill)
        sharing.preempt(now, out);
        return out;
    }

    /** The earliest time a tick would decide something other than an eviction, or {@code null}. */
    Instant nextDue() {
        Leases.Lease lease = m.leases().first();
        long leaseEnds = lease == null ? Long.MAX_VALUE : lease.endsAt();
        long due = Math.min(Math.min(Math.min(leaseEnds, leaves.nextMillis()),
                Math.min(m.timers.firstMillis(), m.retention.nextMillis())),
                Math.min(Math.min(sharing.nextMillis(), m.limits.nextMillis()),
                        Math.min(placement.gangs.nextMillis(), placement.dependencies.nextMillis())));
        return due == Long.MAX_VALUE ? null : Instant.ofEpochMilli(due);
    }

    private void evictSilentWorkers(Instant now, List<Decision> out) {
        List<Worker> silent = new ArrayList<>();
        for (Worker w : m.workers.values()) {
            if (w.live() && silence(w, now) >= m.rules.heartbeatTimeoutMs()) {
                silent.add(w);
            }
        }
        silent.sort(Comparator.comparing(Worker::id));
        for (Worker w : silent) {
            evict(w, "evicted: no heartbeat for " + Durations.words(silence(w, now)), now, out);
        }
    }

    private long silence(Worker w, Instant now) {
        Instant last = w.record.getLastHeartbeat();
        Instant since = last.isAfter(watchingSince) ? last : watchingSince;
        return now.toEpochMilli() - since.toEpochMilli();
    }

    /** {@code WorkerRemoved} EVICTED, its generation fenced ({@code WorkerFenced} to it) and bumped, then it departs. */
    void evict(Worker w, String why, Instant now, List<Decision> out) {
        long stale = w.generation();
        long next = stale + 1;
        placement.reasons.ensureReasons();
        out.add(Decision.journal(new WorkerRemoved(w.id(), next, WorkerState.EVICTED, why), null));
        out.add(Decision.journalAndNotify(new WorkerFenced(w.id(), m.pool, stale, null, null, null,
                why + "; generation " + stale + " is fenced and its " + w.busy() + " attempt(s) are lost; register again",
                now), w.id(), null));
        departures.remove(w, WorkerState.EVICTED, next, "worker " + w.id() + " " + why, now, out);
    }

    private void revokeExpiredLeases(Instant now, List<Decision> out) {
        for (Leases.Lease lease : m.leases().expired(now.toEpochMilli())) {
            TaskRecord task = m.store.task(lease.taskId());
            TaskState state = task == null ? null : task.getState();
            AttemptRecord attempt = state == TaskState.ASSIGNED || state == TaskState.RUNNING
                    ? PoolModel.currentAttempt(task) : null;
            if (attempt == null || attempt.getAttempt() != lease.attempt()) {
                m.leases().end(lease.taskId()); // cannot happen: every end of an attempt ends its lease
                continue;
            }
            String why = m.leases().startBound(task)
                    ? "attempt " + attempt.getAttempt() + " of gang member " + lease.taskId() + " did not start within "
                            + Durations.words(m.leases().gangStartTimeoutMs()) + " of its assignment (the gang start timeout)"
                    : "lease expired: attempt " + attempt.getAttempt() + " ran longer than its timeout of "
                            + Durations.words(task.getTask().getTimeoutMs());
            out.add(Decision.journalAndNotify(new AttemptRevoked(lease.taskId(), m.pool, attempt.getAttempt(),
                    attempt.getWorkerId(), attempt.getGeneration(), why, now), attempt.getWorkerId(), null));
            PoolModel.end(attempt, AttemptOutcome.REVOKED, why, now);
            placement.release(task, attempt, true);
            retryOrFail(task, attempt, why, true, now, out);
            leaves.ended(attempt, now, out);
        }
    }

    /** Delayed tasks join their lines; tasks whose deadline came near move ahead in theirs. */
    private void fireTimers(Instant now, List<Decision> out) {
        List<TaskRecord> released = new ArrayList<>();
        for (TaskRecord task : m.lines.due(now, TIMERS_PER_TICK)) {
            if (!Lines.inLine(task)) {
                released.add(task);
                continue;
            }
            String reason = "its deadline " + task.getTask().getDeadline() + " is less than "
                    + Durations.words(m.rules.deadlineLeadMs())
                    + " away: it moved ahead of the tasks without a near deadline";
            m.lines.moveAhead(task, m.classOf(task), now, reason);
            out.add(Decision.journal(new TaskWaiting(task.getTask().getTaskId(), reason), null));
        }
        if (!released.isEmpty()) {
            placement.requeue(released, now, out, null);
        }
    }

    /**
     * After an attempt ended badly (failed, or its lease expired): another attempt after the
     * backoff when the failure is retryable and attempts are left ({@code TaskFinished} WAITING,
     * the task waits outside its line until then), else the task FAILED. Every attempt that ended
     * without success counts (failed, lost with its worker, revoked at its lease's end).
     */
    void retryOrFail(TaskRecord task, AttemptRecord attempt, String error, boolean retryable, Instant at,
                     List<Decision> out) {
        if (task.getTask().getGang() != null) {
            placement.gangs.memberEnded(task, attempt, error, retryable, at, out); // the gang's attempt ends as one
            return;
        }
        String id = task.getTask().getTaskId();
        int spent = RetryRule.spent(task);
        RetryRule retry = RetryRule.of(task);
        if (retry.retries(spent, retryable)) {
            long backoff = retry.backoffMs(spent);
            Instant due = at.plusMillis(backoff);
            String reason = "attempt " + (task.getAttempts().size() + 1) + " (of at most " + retry.maxAttempts()
                    + ") after a backoff of " + Durations.words(backoff) + ", at " + due;
            out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(),
                    attempt.getOutcome(), TaskState.WAITING, error), reason));
            if (backoff > 0) {
                m.lines.delay(task, due, at, reason);
                out.add(Decision.journal(new TaskWaiting(id, reason), null));
            } else {
                task.setState(TaskState.WAITING);
                placement.requeue(List.of(task), at, out, null);
            }
        } else {
            m.finish(task, TaskState.FAILED, at);
            out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(),
                    attempt.getOutcome(), TaskState.FAILED, error),
                    retryable ? retry.exhausted(spent) : "the failure is not retryable"));
        }
    }
}
