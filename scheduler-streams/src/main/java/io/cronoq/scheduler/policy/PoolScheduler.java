package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.LimitSet;
import io.cronoq.events.ParentEnded;
import io.cronoq.events.ParentWatched;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.events.InputKind;
import io.cronoq.schemas.rules.Rules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;

/**
 * The placement policy of one pool: takes one input event at a time and returns the decisions it
 * causes, in order. It reads no clock (the time of every decision is the input's own timestamp)
 * and nothing but its {@link PoolStore}, and writes every change through that store, so the same
 * inputs over the same store give the same decisions, and a new scheduler over the store continues
 * exactly where the previous one stopped.
 *
 * <p>Every accepted input is returned first as {@code Decision.journal(input)}, then what it
 * caused. An input that breaks a rule changes nothing and is answered with {@code InputRejected}
 * instead (plus {@code WorkerFenced} when it came from a stale worker or attempt). Heartbeats are
 * the exception: an accepted heartbeat is not journaled and returns no decision; a rejected one
 * returns its {@code WorkerFenced} (or {@code InputRejected}), which is journaled.
 *
 * <p>The rules: workers with the same labels form a group. A task may run only on a worker that
 * carries all the labels it requires and whose published resources reach every threshold it
 * requests ({@link Requirement}); among those, its preferences rank first, then the group order
 * (fewest labels, then the most free slots it could use), then the least-loaded ACTIVE worker,
 * ties round-robin (see {@link WaitClass#bestFreeProfile}). A task no free slot can take waits in
 * the line of its requirement class without blocking others, with a reason ({@link WaitReason});
 * a freed slot goes to the best-placed waiting task it can serve ({@link Ordering#rank}: fixed
 * starts, near deadlines, then submission time with priority and aging). When teams share the pool,
 * each task counts against its tenant, each tenant has its own lines, and between tenants a freed
 * slot goes first to one below its guarantee, then to the one furthest below its weighted share
 * ({@link Tenants}, {@link Sharing}). Hence the invariant every method restores before it returns:
 * no task waits while an ACTIVE worker that could run it has a free slot, unless its tenant's max
 * keeps it from that worker. Not thread-safe: one pool, one thread.
 *
 * <p>Why a task waits is journaled ({@code TaskWaiting}) and kept in its record when it starts
 * waiting (with its place in line when matching slots are all busy). Afterwards the reason of its
 * class changes only when a worker registers, drains or leaves; then the class's reason is
 * recomputed once, and only when it changed is one {@code TaskWaiting} journaled, for the task
 * first in line. So the journal grows by at most one entry per task plus one per class and worker
 * event, never by the backlog; the current reason of every class is in {@link #classes()}.
 *
 * <p>Time is an input too: {@link #tick} is told the time (by the topology's punctuator, by a
 * simulation) and returns what time brought (evictions, lease expiries, delayed tasks joining their
 * lines, near deadlines, finished tasks forgotten at the end of their retention), journaled like
 * any decision. Tasks that wait for a time (not before, a
 * retry's backoff, a fixed start's reservation) wait outside every line, on a timer
 * ({@link TimerQueue}); the rules are in {@code docs/time.md}.
 */
public final class PoolScheduler {

    private final PoolModel m;
    private final Placement placement;
    private final Departures departures;
    private final Leaves leaves;
    private final Sharing sharing;
    private final LimitChanges limits;
    private final PoolTime time;
    private final AttemptReports reports;
    private final WorkerInputs workerInputs;
    private final PoolReads reads;
    private final Dependencies dependencies;

    /** Loads the pool's counters, workers, groups and class heads from the store, with the default time rules. */
    public PoolScheduler(String pool, PoolStore store) {
        this(pool, store, TimeRules.DEFAULT);
    }

    /**
     * Loads the pool's counters, workers, groups and class heads from the store; the leases of its
     * running attempts are read when first needed.
     */
    public PoolScheduler(String pool, PoolStore store, TimeRules rules) {
        this.m = new PoolModel(pool, store, rules);
        this.placement = new Placement(m);
        this.departures = new Departures(m, placement);
        this.leaves = new Leaves(m, placement, departures);
        placement.gangs.leaves(leaves);
        this.sharing = new Sharing(m, placement, leaves);
        this.limits = new LimitChanges(m, placement);
        this.time = new PoolTime(m, placement, departures, leaves, sharing);
        this.reports = new AttemptReports(m, placement, time, leaves);
        this.workerInputs = new WorkerInputs(m, placement, departures, leaves);
        this.reads = new PoolReads(m, placement);
        this.dependencies = placement.dependencies;
    }

    public String pool() {
        return m.pool;
    }

    /**
     * The one way in: takes any input event and returns the decisions it causes, in order.
     * {@code heardAt} is when the scheduler heard it, on the clock its ticks run on (the topology's
     * wall-clock time, a simulation's time of the input): a worker's silence, the eviction rule,
     * counts from there, never from the worker's own clock, and so does the preemption grace of a
     * task the input makes wait, never from its producer's clock. An accepted {@code AttemptProgress}
     * decides nothing. An object that is no input event is rejected ({@code InputRejected},
     * journaled), never skipped.
     */
    public List<Decision> apply(SpecificRecord input, Instant heardAt) {
        Objects.requireNonNull(heardAt, "heardAt");
        InputKind kind = InputKind.find(input);
        if (kind == null) {
            String type = input == null ? "null" : input.getSchema().getName();
            return List.of(Admission.rejected(type, RejectionCode.INVALID_ARGUMENT, "event",
                    "cronoq does not know the input event " + type + "; send one of the input topics' events",
                    null, null));
        }
        m.heard(heardAt);
        return settled(switch (kind) {
            case TASK_SUBMITTED -> submit((TaskSubmitted) input);
            case TASK_CANCEL_REQUESTED -> cancel((TaskCancelRequested) input);
            case SHARING_POLICY_SET -> sharing.set((SharingPolicySet) input, ((SharingPolicySet) input).getSetAt());
            case LIMIT_SET -> limits.set((LimitSet) input);
            case WORKER_REGISTERED -> workerInputs.register((WorkerRegistered) input, heardAt);
            case WORKER_HEARTBEAT -> workerInputs.heartbeat((WorkerHeartbeat) input, heardAt);
            case WORKER_DRAINING -> workerInputs.drain((WorkerDraining) input);
            case WORKER_LEFT -> workerInputs.leave((WorkerLeft) input, heardAt);
            case ATTEMPT_STARTED -> reports.started((AttemptStarted) input);
            case ATTEMPT_PROGRESS -> List.of();
            case ATTEMPT_SUCCEEDED -> reports.succeeded((AttemptSucceeded) input);
            case ATTEMPT_FAILED -> reports.failed((AttemptFailed) input);
            case GANG_SUBMITTED -> placement.gangs.submit((GangSubmitted) input);
            case PARENT_WATCHED -> dependencies.watchedFromPool((ParentWatched) input);
            case PARENT_ENDED -> dependencies.heardFromPool((ParentEnded) input);
        });
    }

    /**
     * After an input or a tick: the children of the tasks it ended are told how they ended
     * ({@link Dependencies}), the tenants it left idle and without a policy are forgotten, empty
     * lines are swept when they pile up, and the scheduler's time of it is done with.
     */
    private List<Decision> settled(List<Decision> out) {
        if (!m.endedParents.isEmpty()) {
            out = new ArrayList<>(out); // the children of the tasks that ended are told in this input
            dependencies.tellChildren(out);
        }
        m.tenants.forgetIdle();
        m.groups.sweepIfDue();
        m.heard(null);
        return out;
    }

    // ==== tasks ===================================================================================

    /**
     * A new task: assigned at once when a worker that satisfies its requirement has a free slot
     * (the one its preferences, then the placement order, rank first), else it waits
     * ({@code TaskWaiting} with the reason). A task id seen before yields only
     * {@code DuplicateSubmission}. The submission rules are {@link Rules#checkSubmission}, the
     * client's and the gateway's.
     */
    List<Decision> submit(TaskSubmitted in) {
        List<Decision> out = new ArrayList<>(3);
        if (m.admission.refused("TaskSubmitted", Rules.checkSubmission(in), in.getPool(), in.getTaskId(), null, out)) {
            return out;
        }
        TaskRecord existing = m.store.task(in.getTaskId());
        if (existing != null) {
            String where = m.pool.equals(existing.getTask().getPool())
                    ? existing.getState().toString()
                    : "in pool " + existing.getTask().getPool();
            out.add(Decision.journal(new DuplicateSubmission(in.getTaskId()),
                    "task " + in.getTaskId() + " already exists (" + where + "); the second submission is ignored"));
            return out;
        }
        out.add(Decision.journal(in, null));
        Instant at = in.getSubmittedAt();
        TaskRecord task = new TaskRecord(in, TaskState.WAITING, m.nextSequence(), new ArrayList<>(), null, null, at,
                Ordering.NOT_IN_LINE, null, null, 0, 0);
        dependencies.adopt(task);
        if (!in.getAfter().isEmpty()) {
            dependencies.block(task, at, out);
            return out;
        }
        placement.admit(task, at, out);
        return out;
    }

    /**
     * Cancels a task in any state: a waiting one leaves its line; an assigned or running one has its
     * attempt revoked ({@code AttemptRevoked} to its worker) and its slot goes to the next task; a
     * finished or unknown one is rejected.
     */
    List<Decision> cancel(TaskCancelRequested in) {
        List<Decision> out = new ArrayList<>(4);
        if (m.admission.refused("TaskCancelRequested", Rules.check(in), in.getPool(), in.getTaskId(), null, out)) {
            return out;
        }
        String id = in.getTaskId();
        TaskRecord task = m.admission.task(id);
        if (task == null) {
            out.add(Admission.rejected("TaskCancelRequested", RejectionCode.NOT_FOUND, "taskId",
                    "no task " + id + " in pool " + m.pool, id, null));
            return out;
        }
        Instant at = in.getRequestedAt();
        TaskState previous = task.getState();
        if (task.getTask().getGang() != null && (previous == TaskState.WAITING || previous == TaskState.ASSIGNED
                || previous == TaskState.RUNNING)) {
            return placement.gangs.cancel(in, task);
        }
        switch (previous) {
            case BLOCKED -> {
                out.add(Decision.journal(in, null));
                m.blocked(-1);
                m.finish(task, TaskState.CANCELLED, at);
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
            }
            case WAITING -> {
                out.add(Decision.journal(in, null));
                m.lines.remove(task, m.classOf(task));
                m.finish(task, TaskState.CANCELLED, at);
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
            }
            case ASSIGNED, RUNNING -> {
                out.add(Decision.journal(in, null));
                AttemptRecord attempt = PoolModel.currentAttempt(task);
                PoolModel.end(attempt, AttemptOutcome.CANCELLED, null, at);
                m.finish(task, TaskState.CANCELLED, at);
                placement.release(task, attempt, true);
                out.add(Decision.journalAndNotify(new AttemptRevoked(id, m.pool, attempt.getAttempt(),
                        attempt.getWorkerId(), attempt.getGeneration(), "cancelled", at), attempt.getWorkerId(), null));
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
                leaves.ended(attempt, at, out);
                placement.settle(at, out);
            }
            // The words of earlier releases, kept so their journals replay to the same decisions; a blocked task
            // (waiting for its parents) counts among the waiting ones.
            default -> out.add(Admission.rejected("TaskCancelRequested", RejectionCode.FAILED_PRECONDITION, "taskId",
                    "task " + id + " already " + previous + "; only a waiting, assigned or running task can be cancelled",
                    id, null));
        }
        return out;
    }

    // ==== workers: register, heartbeat, drain, leave ({@link WorkerInputs}) =====================

    /** {@link WorkerInputs#register} heard at the worker's own {@code registeredAt}: this package's tests. */
    List<Decision> register(WorkerRegistered in) {
        return workerInputs.register(in, in.getRegisteredAt());
    }

    /** {@link WorkerInputs#heartbeat} heard at the worker's own {@code sentAt}: this package's tests. */
    List<Decision> heartbeat(WorkerHeartbeat in) {
        return workerInputs.heartbeat(in, in.getSentAt());
    }

    /** A worker stops taking work ({@link WorkerInputs#drain}): this package's tests. */
    List<Decision> drain(WorkerDraining in) {
        return workerInputs.drain(in);
    }

    /** {@link WorkerInputs#leave} heard at the worker's own {@code at}: this package's tests. */
    List<Decision> leave(WorkerLeft in) {
        return workerInputs.leave(in, in.getAt());
    }

    // ==== attempts: the reports of the worker that holds one =====================================

    /** The worker began the attempt: ASSIGNED becomes RUNNING. */
    List<Decision> started(AttemptStarted in) {
        return reports.started(in);
    }

    /** The attempt succeeded: the task is SUCCEEDED and the slot goes to the next waiting task. */
    List<Decision> succeeded(AttemptSucceeded in) {
        return reports.succeeded(in);
    }

    /** The attempt failed: retried at its place in line after the backoff when it may be, else FAILED. */
    List<Decision> failed(AttemptFailed in) {
        return reports.failed(in);
    }

    // ==== time ====================================================================================

    /**
     * What time brings, decided at {@code now} (the punctuator's wall-clock time, the only clock
     * the policy sees, and journaled as the time of every decision it returns). In order:
     * <ol>
     *   <li>every live worker silent for {@link TimeRules#heartbeatTimeoutMs} (counted from its last
     *       heartbeat, or from this scheduler's first tick if later, so a scheduler that was down
     *       evicts no one for its own absence) is evicted: {@code WorkerRemoved} EVICTED with the
     *       cause, its generation is fenced and bumped ({@code WorkerFenced} to it), its capacity
     *       leaves its group, and each attempt it held is re-queued as a new attempt
     *       ({@code TaskFinished} LOST) or fails when no attempts are left;</li>
     *   <li>every leaving worker whose leave grace ({@link TimeRules#leaveGraceMs}, from when its leave
     *       was heard) is over is removed ({@code WorkerRemoved} LEFT), and each attempt it still held
     *       is re-queued ({@code TaskFinished} LOST) or fails, as at a leave without grace;</li>
     *   <li>every attempt whose lease ended (its task's {@code timeoutMs} after it started) is
     *       revoked ({@code AttemptRevoked} to its worker) and retried with backoff, or fails;</li>
     *   <li>every due timer fires: a delayed task joins its line ({@code TaskWaiting}), a task whose
     *       deadline came near moves ahead in it ({@code TaskWaiting});</li>
     *   <li>every finished task whose retention ({@link TimeRules#retentionMs}) ended is forgotten
     *       ({@code TaskForgotten}): its record leaves the store;</li>
     * </ol>
     * then freed slots go to the waiting tasks as usual; last, a tenant below its guarantee whose first
     * waiting task there waited the pool's preemption grace takes borrowed slots back
     * ({@code AttemptRevoked}, {@code TaskFinished} PREEMPTED, see {@link Sharing}). A tick with
     * nothing due returns nothing.
     */
    public List<Decision> tick(Instant now) {
        m.heard(now);
        return settled(time.tick(now));
    }

    /**
     * The earliest time a tick would decide something other than an eviction (a leaving worker's
     * grace ends, a lease ends, a timer fires, a finished task is forgotten, a preemption grace ends), or {@code null} when
     * nothing is pending. For simulations, which tick exactly then instead of every second;
     * evictions depend on heartbeats, which the journal does not keep.
     */
    public Instant nextDue() {
        return time.nextDue();
    }

    /**
     * Evicts a live worker at {@code at} for {@code reason}, exactly as the first step of a tick
     * evicts a silent one: {@code WorkerRemoved} EVICTED, its generation fenced and bumped, its
     * attempts lost and re-queued (and placed, if a slot is free). For replaying a recorded
     * eviction, which the journal records but cannot re-derive (it keeps no heartbeats); a tick at
     * the same time then does the rest of what that tick did. A worker that is not live is left alone.
     */
    public List<Decision> evict(String workerId, Instant at, String reason) {
        List<Decision> out = new ArrayList<>();
        m.heard(at);
        Worker w = m.workers.get(workerId);
        if (w != null && w.live()) {
            time.evict(w, reason, at, out);
        }
        return settled(out);
    }

    /**
     * Ends a leaving worker's grace at {@code at}, exactly as a tick does once the grace is over:
     * {@code WorkerRemoved} LEFT, what it still holds lost and re-queued (and placed, if a slot is
     * free). For replaying a recorded removal: the grace counts from when the scheduler heard the
     * leave, which journals of older releases do not keep, so a replay does not re-derive when it
     * ended. A worker that is not leaving is left alone.
     */
    public List<Decision> endLeave(String workerId, Instant at) {
        List<Decision> out = new ArrayList<>();
        m.heard(at);
        leaves.endNow(workerId, at, out);
        return settled(out);
    }

    // ==== reads ===================================================================================

    /** The gangs that wait now, in the order they are tried (for tests). */
    List<GangPlacer.WaitingGang> waitingGangs() {
        return placement.gangs.waiting();
    }

    /** Tenants the pool knows now: those idle without a policy were forgotten (for tests and the memory check). */
    int knownTenants() {
        return m.tenants.all().size();
    }

    /** Capacity, busy and waiting of the pool and of each group (ordered by label key). */
    public PoolSnapshot snapshot() {
        return reads.snapshot();
    }

    /**
     * The requirement classes that have waiting tasks, ordered by class key: how many wait, since
     * when the first in line waits, and why. Costs one task read per class, never the backlog. Then
     * each waiting gang's members per requirement, in the gangs' order, with the gang's reason (they
     * wait outside the lines; the snapshot's waiting counts include them too).
     */
    public List<ClassSnapshot> classes() {
        return reads.classes();
    }

    /**
     * How the pool is shared now: its preemption settings, its capacity, and per tenant that has a
     * policy, holds a slot or has a waiting task: weight, fair share, what it holds, its quotas, what
     * waits and since when. Costs one task read per waiting class, never the backlog.
     */
    public SharingSnapshot sharing() {
        return reads.sharing();
    }

    /**
     * When a task held back by a rate limit has its units (a tick then starts it), or {@code null}:
     * read between ticks, so a bucket's refill is not held up to the next tick.
     */
    public Instant rateDue() {
        long due = m.limits.nextMillis();
        return due == Long.MAX_VALUE ? null : Instant.ofEpochMilli(due);
    }

    /**
     * The pool's concurrency keys and rate limits now: per key its admin's limit, the attempts
     * holding it and the tasks it holds back; per rate limit its refill, burst, the units its bucket
     * holds at {@code at} (the decision clock when later) and the tasks it holds back. Costs the
     * number of keys and rate limits in use, never the backlog.
     */
    public LimitsSnapshot limits(Instant at) {
        return m.limits.snapshot(at);
    }

    /**
     * A copy of the worker's record (LEFT workers included), or {@code null} for an unknown id. A
     * leaving worker is DRAINING with {@code leftAt} set: when its leave was heard.
     */
    public WorkerRecord worker(String workerId) {
        return reads.worker(workerId);
    }
}
