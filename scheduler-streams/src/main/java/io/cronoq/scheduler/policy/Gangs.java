package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.GangSpec;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.policy.time.RetryRule;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.GangRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The gangs of one pool: tasks that start together or not at all. A gang's members are ordinary
 * tasks ({@code <gangId>-<rank>}), but they wait outside every line: the gang waits as one, and
 * whenever slots may have freed it is placed whole or not at all ({@link GangPlacer}), before single
 * tasks take what is free. Once placed, the gang's attempt ends as one: a member that fails, is lost
 * with its worker or overruns its lease revokes the others (told to their workers, as a preemption
 * is), and the gang runs again as a whole after the first member's backoff while its retry policy
 * (member 0's) allows and none of its members has succeeded yet, else every unfinished member fails.
 * Cancelling any member cancels the gang. A preemption for a tenant's guarantee takes a gang back
 * whole, and only when no single attempt is borrowed. A member's attempts thus always number the gang's, so
 * every member counts the same unsuccessful attempts. Not thread-safe: one pool, one thread.
 */
final class Gangs {

    private final PoolModel m;
    private final Placement placement;
    private final GangPlacer placer;
    private Leaves leaves;

    Gangs(PoolModel m, Placement placement) {
        this.m = m;
        this.placement = placement;
        this.placer = new GangPlacer(m, placement);
    }

    /** Where a departed or finished worker's last attempt is noticed: set once the pool's parts exist. */
    void leaves(Leaves leaves) {
        this.leaves = leaves;
    }

    /** Whether any gang waits to be placed. */
    boolean anyWaiting() {
        return placer.anyWaiting();
    }

    /** Places the waiting gangs that fit now, in their order ({@link GangPlacer#placeWaiting}). */
    void placeWaiting(Instant at, List<Decision> out) {
        placer.placeWaiting(at, out);
    }

    /** Tries again the gangs that waited their turn by share, after single tasks took theirs ({@link GangPlacer#placeAfterTheirTurn}). */
    void placeAfterTheirTurn(Instant at, List<Decision> out) {
        placer.placeAfterTheirTurn(at, out);
    }

    /** When the first waiting gang's backoff ends, or {@link Long#MAX_VALUE}. */
    long nextMillis() {
        return placer.nextMillis();
    }

    /** The waiting gangs, for reads. */
    List<GangPlacer.WaitingGang> waiting() {
        return placer.waiting();
    }

    /** Per requirement class, the members of waiting gangs that need it ({@link GangPlacer#waitingMembers}). */
    java.util.Map<Need, Long> waitingMembers() {
        return placer.waitingMembers();
    }

    /** The waiting gangs' members per requirement, as lines of the classes view ({@link GangPlacer#classes}). */
    List<ClassSnapshot> classes() {
        return placer.classes();
    }

    /**
     * A new gang: refused (nothing kept) when it breaks a rule ({@link GangRules#check}) or a
     * member's id is taken; a duplicate of a gang seen before yields only {@code DuplicateSubmission};
     * else every member is kept as a waiting task and the gang is placed at once when it fits, or
     * waits with its reason ({@code TaskWaiting} for each member).
     */
    List<Decision> submit(GangSubmitted in) {
        List<Decision> out = new ArrayList<>();
        if (m.admission.refused("GangSubmitted", GangRules.check(in), in.getPool(), in.getGangId(), null, out)) {
            return out;
        }
        String gangId = in.getGangId();
        TaskRecord first = m.store.task(GangRules.memberId(gangId, 0));
        if (first != null && first.getTask().getGang() != null && gangId.equals(first.getTask().getGang().getGangId())) {
            out.add(Decision.journal(new DuplicateSubmission(first.getTask().getTaskId()),
                    "gang " + gangId + " already exists; the second submission is ignored"));
            return out;
        }
        List<TaskSubmitted> members = in.getMembers();
        for (int i = 0; i < members.size(); i++) {
            if (m.store.task(members.get(i).getTaskId()) != null) {
                out.add(Admission.rejected("GangSubmitted", RejectionCode.INVALID_ARGUMENT, "members[" + i + "].taskId",
                        "task " + members.get(i).getTaskId() + " already exists; choose another gang id", gangId, null));
                return out;
            }
        }
        out.add(Decision.journal(in, null));
        Instant at = in.getSubmittedAt();
        List<TaskRecord> records = new ArrayList<>(members.size());
        for (int rank = 0; rank < members.size(); rank++) {
            // A copy: the input is journaled as it came, its members without the gang the scheduler sets.
            TaskSubmitted s = org.apache.avro.specific.SpecificData.get().deepCopy(TaskSubmitted.SCHEMA$, members.get(rank));
            s.setGang(new GangSpec(gangId, members.size(), rank, in.getPlacement(), in.getSameLabel()));
            TaskRecord task = new TaskRecord(s, TaskState.WAITING, m.nextSequence(), new ArrayList<>(), null, null, at,
                    Ordering.NOT_IN_LINE, null, null, 0, 0);
            placement.dependencies.adopt(task); // children of another pool may have watched it before it came
            records.add(task);
        }
        placer.waitAll(records, at, at, null, out);
        return out;
    }

    /**
     * A member's attempt ended without success ({@code attempt} is ended and its slot freed): the
     * gang's attempt ends with it. The other members still running are revoked; then the gang waits
     * to run again as a whole (after the backoff of member 0's retry policy) when the failure is
     * retryable, attempts are left and no member has succeeded, else every unfinished member fails.
     */
    void memberEnded(TaskRecord task, AttemptRecord attempt, String error, boolean retryable, Instant at,
                     List<Decision> out) {
        memberEnded(task, attempt, error, retryable, at, List.of(task), out);
    }

    /** {@link #memberEnded}, with {@code ended}: members whose records the caller holds changed (lost with it). */
    private void memberEnded(TaskRecord task, AttemptRecord attempt, String error, boolean retryable, Instant at,
                             List<TaskRecord> ended, List<Decision> out) {
        GangSpec gang = task.getTask().getGang();
        List<TaskRecord> members = members(gang, ended);
        TaskRecord first = members.get(0);
        boolean anySucceeded = false;
        for (TaskRecord member : members) {
            anySucceeded |= member.getState() == TaskState.SUCCEEDED;
        }
        int spent = RetryRule.spent(task);
        RetryRule retry = RetryRule.of(first);
        boolean again = !anySucceeded && retry.retries(spent, retryable);
        String what = "member " + gang.getGangId() + "-" + gang.getRank() + " " + words(attempt.getOutcome());
        String verdict = again ? null : anySucceeded
                ? "a member already succeeded, so the gang cannot start together again: it fails"
                : retryable ? retry.exhausted(spent) : "the failure is not retryable";
        String whyOthers = "gang " + gang.getGangId() + ": " + what;
        out.add(Decision.journal(new TaskFinished(task.getTask().getTaskId(), attempt.getAttempt(), attempt.getWorkerId(),
                attempt.getOutcome(), again ? TaskState.WAITING : TaskState.FAILED, error),
                again ? "the gang runs again as a whole" : verdict));
        List<TaskRecord> unfinished = new ArrayList<>(members.size());
        for (TaskRecord member : members) {
            if (member == task) {
                unfinished.add(task);
                continue;
            }
            TaskState state = member.getState();
            if (state == TaskState.ASSIGNED || state == TaskState.RUNNING) {
                endWith(member, whyOthers, again, at, out);
                unfinished.add(member);
            } else if (state == TaskState.WAITING) {
                unfinished.add(member); // cannot happen: a placed gang's members all hold attempts
            }
        }
        if (again) {
            long backoff = retry.backoffMs(spent);
            placer.waitAll(unfinished, at, at.plusMillis(backoff), "gang attempt " + (spent + 1) + " of at most "
                    + retry.maxAttempts() + ", after " + whyOthers
                    + (backoff > 0 ? "; after a backoff of " + Durations.words(backoff) : ""), out);
        } else {
            for (TaskRecord member : unfinished) {
                m.finish(member, TaskState.FAILED, at);
            }
        }
    }

    /**
     * Members lost with a worker that went away ({@link Departures}): their attempts are ended (LOST)
     * and the worker has left its group; each gang among them ends its attempt once.
     */
    void lost(List<TaskRecord> lost, String cause, Instant at, List<Decision> out) {
        for (TaskRecord task : lost) {
            if (task.getState() == TaskState.ASSIGNED || task.getState() == TaskState.RUNNING) {
                AttemptRecord attempt = PoolModel.currentAttempt(task);
                memberEnded(task, attempt, cause, true, at, lost, out); // a sibling lost with it ends with it
            }
        }
    }

    /** Whether every member of the task's gang holds a slot now: only such a gang may be preempted, whole. */
    boolean running(TaskRecord task) {
        List<TaskRecord> members = members(task.getTask().getGang(), List.of(task));
        return members.size() == task.getTask().getGang().getSize() && members.stream()
                .allMatch(t -> t.getState() == TaskState.ASSIGNED || t.getState() == TaskState.RUNNING);
    }

    /**
     * Takes a running gang back whole for a tenant below its guarantee: every member's attempt is
     * revoked ({@code AttemptRevoked} to its worker) as PREEMPTED, which spends none of its attempts,
     * and the gang waits again, tried from the next moment on (the freed slots go to the tenant first).
     */
    void preempt(TaskRecord task, String why, Instant at, List<Decision> out) {
        List<TaskRecord> members = members(task.getTask().getGang(), List.of(task));
        for (TaskRecord member : members) {
            AttemptRecord attempt = PoolModel.currentAttempt(member);
            String id = member.getTask().getTaskId();
            out.add(Decision.journalAndNotify(new AttemptRevoked(id, m.pool, attempt.getAttempt(), attempt.getWorkerId(),
                    attempt.getGeneration(), why, at), attempt.getWorkerId(), null));
            PoolModel.end(attempt, AttemptOutcome.PREEMPTED, why, at);
            placement.release(member, attempt, false);
            out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(),
                    AttemptOutcome.PREEMPTED, TaskState.WAITING, why), "a preempted attempt spends none of its task's attempts"));
            leaves.ended(attempt, at, out);
        }
        placer.waitAll(members, at, at.plusMillis(1), "gang " + task.getTask().getGang().getGangId() + " was " + why,
                out);
    }

    /**
     * A cancel request for a member cancels the whole gang: waiting members leave the gang's wait,
     * running ones are revoked ({@code AttemptRevoked} to their workers); finished members stay.
     */
    List<Decision> cancel(TaskCancelRequested in, TaskRecord task) {
        List<Decision> out = new ArrayList<>();
        GangSpec gang = task.getTask().getGang();
        Instant at = in.getRequestedAt();
        out.add(Decision.journal(in, "cancelling a member cancels its gang " + gang.getGangId()));
        placer.forget(gang.getGangId());
        for (TaskRecord member : members(gang, List.of(task))) {
            TaskState previous = member.getState();
            String id = member.getTask().getTaskId();
            if (previous == TaskState.WAITING) {
                m.finish(member, TaskState.CANCELLED, at);
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
            } else if (previous == TaskState.ASSIGNED || previous == TaskState.RUNNING) {
                AttemptRecord attempt = PoolModel.currentAttempt(member);
                PoolModel.end(attempt, AttemptOutcome.CANCELLED, null, at);
                m.finish(member, TaskState.CANCELLED, at);
                placement.release(member, attempt, false);
                out.add(Decision.journalAndNotify(new AttemptRevoked(id, m.pool, attempt.getAttempt(),
                        attempt.getWorkerId(), attempt.getGeneration(), "cancelled", at), attempt.getWorkerId(), null));
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
                leaves.ended(attempt, at, out);
            }
        }
        placement.settle(at, out);
        return out;
    }

    /**
     * Ends a running member's attempt because another member's ended: revoked and told to its worker,
     * its slot freed; or, when its worker is gone too (the attempt already ended LOST with it), only
     * journaled.
     */
    private void endWith(TaskRecord member, String why, boolean again, Instant at, List<Decision> out) {
        AttemptRecord attempt = PoolModel.currentAttempt(member);
        String id = member.getTask().getTaskId();
        if (attempt.getOutcome() == null) {
            out.add(Decision.journalAndNotify(new AttemptRevoked(id, m.pool, attempt.getAttempt(), attempt.getWorkerId(),
                    attempt.getGeneration(), why, at), attempt.getWorkerId(), null));
            PoolModel.end(attempt, AttemptOutcome.REVOKED, why, at);
            placement.release(member, attempt, false);
            leaves.ended(attempt, at, out);
        }
        out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(), attempt.getOutcome(),
                again ? TaskState.WAITING : TaskState.FAILED, why), null));
    }

    /**
     * The records of a gang's members, in rank order (a forgotten member is left out): those in
     * {@code held} as held (changed and not stored yet), the others read.
     */
    private List<TaskRecord> members(GangSpec gang, List<TaskRecord> held) {
        List<TaskRecord> members = new ArrayList<>(gang.getSize());
        for (int rank = 0; rank < gang.getSize(); rank++) {
            String id = GangRules.memberId(gang.getGangId(), rank);
            TaskRecord member = null;
            for (TaskRecord h : held) {
                if (h.getTask().getTaskId().equals(id)) {
                    member = h;
                }
            }
            member = member != null ? member : m.store.task(id);
            if (member != null) {
                members.add(member);
            }
        }
        return members;
    }

    private static String words(AttemptOutcome outcome) {
        return switch (outcome) {
            case FAILED -> "failed";
            case LOST -> "was lost with its worker";
            case REVOKED -> "was revoked";
            case PREEMPTED -> "was preempted";
            case CANCELLED -> "was cancelled";
            case SUCCEEDED -> "succeeded";
        };
    }
}
