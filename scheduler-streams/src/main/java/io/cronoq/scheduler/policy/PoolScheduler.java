package io.cronoq.scheduler.policy;

import io.cronoq.schemas.rules.Durations;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.InputRejected;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
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
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Rules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import io.cronoq.schemas.events.InputKind;
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
 * starts, near deadlines, then submission time with priority and aging). Hence the invariant every method
 * restores before it returns: no task waits while an ACTIVE worker that could run it has a free
 * slot. Not thread-safe: one pool, one thread.
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

    private final String pool;
    private final PoolStore store;
    private final PoolRecord counters;
    private final Map<String, Worker> workers = new HashMap<>();
    private final ClassIndex classes;
    private final Groups groups;
    private final TimeRules rules;
    private final TimerQueue timers;
    /** The running attempts' leases, read when first needed (a snapshot never needs them); see {@link #leases()}. */
    private Leases leases;
    private final Admission admission;
    private final Lines lines;
    private final Retention retention;
    /** The time of the first tick since this scheduler loaded: silence from before it evicts no one. */
    private Instant watchingSince;
    private boolean poolStored;

    /** Profiles that gained a free slot during the current input: their lines get a chance. */
    private final List<Profile> freed = new ArrayList<>();
    private final List<WaitClass> candidates = new ArrayList<>();

    /** Loads the pool's counters, workers, groups and class heads from the store, with the default time rules. */
    public PoolScheduler(String pool, PoolStore store) {
        this(pool, store, TimeRules.DEFAULT);
    }

    /**
     * Loads the pool's counters, workers, groups and class heads from the store; the leases of its
     * running attempts are read when first needed.
     */
    public PoolScheduler(String pool, PoolStore store, TimeRules rules) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.store = Objects.requireNonNull(store, "store");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.timers = store.timers();
        this.admission = new Admission(pool, store, workers);
        PoolRecord stored = store.pool();
        this.poolStored = stored != null;
        this.counters = stored != null ? stored : new PoolRecord(pool, 1L);
        this.classes = new ClassIndex(store.waiting());
        this.groups = new Groups(classes);
        this.lines = new Lines(classes, timers, store, rules);
        this.retention = new Retention(store, rules);
        for (WorkerRecord r : store.workers()) {
            Worker w = new Worker(r);
            workers.put(w.id(), w);
            if (w.live()) {
                groups.join(w);
            }
        }
        for (Map.Entry<String, Long> e : store.waiting().counts().entrySet()) {
            if (e.getValue() > 0) {
                classes.load(groups.classFor(e.getKey()), e.getValue());
            }
        }
        // Class reasons are computed when first needed: the store alone determines them.
    }

    public String pool() {
        return pool;
    }

    /**
     * The one way in: takes any input event and returns the decisions it causes, in order.
     * {@code heardAt} is when the scheduler heard it, on the clock its ticks run on (the topology's
     * wall-clock time, a simulation's time of the input): a worker's silence, the eviction rule,
     * counts from there, never from the worker's own clock. An accepted {@code AttemptProgress}
     * decides nothing. An object that is no input event is rejected ({@code InputRejected},
     * journaled), never skipped.
     */
    public List<Decision> apply(SpecificRecord input, Instant heardAt) {
        Objects.requireNonNull(heardAt, "heardAt");
        Optional<InputKind> kind = InputKind.of(input);
        if (kind.isEmpty()) {
            String type = input == null ? "null" : input.getSchema().getName();
            return List.of(Admission.rejected(type, RejectionCode.INVALID_ARGUMENT, "event",
                    "cronoq does not know the input event " + type + "; send one of the input topics' events",
                    null, null));
        }
        return switch (kind.get()) {
            case TASK_SUBMITTED -> submit((TaskSubmitted) input);
            case TASK_CANCEL_REQUESTED -> cancel((TaskCancelRequested) input);
            case WORKER_REGISTERED -> register((WorkerRegistered) input, heardAt);
            case WORKER_HEARTBEAT -> heartbeat((WorkerHeartbeat) input, heardAt);
            case WORKER_DRAINING -> drain((WorkerDraining) input);
            case WORKER_LEFT -> leave((WorkerLeft) input);
            case ATTEMPT_STARTED -> started((AttemptStarted) input);
            case ATTEMPT_PROGRESS -> List.of();
            case ATTEMPT_SUCCEEDED -> succeeded((AttemptSucceeded) input);
            case ATTEMPT_FAILED -> failed((AttemptFailed) input);
        };
    }

    // ==== tasks ===================================================================================

    /**
     * A new task: assigned at once when a worker that satisfies its requirement has a free slot
     * (the one its preferences, then the placement order, rank first), else it waits
     * ({@code TaskWaiting} with the reason). A task id seen before yields only
     * {@code DuplicateSubmission}. The submission rules are {@link Rules#checkSubmission}, the
     * client's and the gateway's.
     */
    public List<Decision> submit(TaskSubmitted in) {
        List<Decision> out = new ArrayList<>(3);
        if (admission.refused("TaskSubmitted", Rules.checkSubmission(in), in.getPool(), in.getTaskId(), null, out)) {
            return out;
        }
        TaskRecord existing = store.task(in.getTaskId());
        if (existing != null) {
            String where = pool.equals(existing.getTask().getPool())
                    ? existing.getState().toString()
                    : "in pool " + existing.getTask().getPool();
            out.add(Decision.journal(new DuplicateSubmission(in.getTaskId()),
                    "task " + in.getTaskId() + " already exists (" + where + "); the second submission is ignored"));
            return out;
        }
        out.add(Decision.journal(in, null));
        Instant at = in.getSubmittedAt();
        TaskRecord task = new TaskRecord(in, TaskState.WAITING, nextSequence(), new ArrayList<>(), null, null, at,
                Ordering.NOT_IN_LINE, null);
        Instant release = Ordering.releaseAt(in, rules);
        if (release != null && release.isAfter(at)) {
            String reason = in.getStartAt() != null
                    ? "fixed start at " + in.getStartAt() + ": the next matching slot is held for it from " + release
                    : "not before " + release;
            lines.delay(task, release, at, reason);
            out.add(Decision.journal(new TaskWaiting(in.getTaskId(), reason), null));
            return out;
        }
        WaitClass c = groups.classFor(Requirement.keyOf(in));
        // A class with a line has no free profile (the invariant), so only an empty line is worth a
        // look; and the newcomer never overtakes the line.
        Profile p = c.count == 0 ? c.bestFreeProfile(in.getPreferences()) : null;
        if (p != null) {
            assign(task, p, at, out);
        } else {
            // It joins the back of the line: its place is the new count.
            String reason = reasonOf(c).forPlace(c.count + 1);
            lines.enqueue(task, c, at, reason);
            out.add(Decision.journal(new TaskWaiting(task.getTask().getTaskId(), reason), null));
        }
        return out;
    }

    /**
     * Cancels a task in any state: a waiting one leaves its line; an assigned or running one has its
     * attempt revoked ({@code AttemptRevoked} to its worker) and its slot goes to the next task; a
     * finished or unknown one is rejected.
     */
    public List<Decision> cancel(TaskCancelRequested in) {
        List<Decision> out = new ArrayList<>(4);
        if (admission.refused("TaskCancelRequested", Rules.check(in), in.getPool(), in.getTaskId(), null, out)) {
            return out;
        }
        String id = in.getTaskId();
        TaskRecord task = admission.task(id);
        if (task == null) {
            out.add(Admission.rejected("TaskCancelRequested", RejectionCode.NOT_FOUND, "taskId",
                    "no task " + id + " in pool " + pool, id, null));
            return out;
        }
        Instant at = in.getRequestedAt();
        TaskState previous = task.getState();
        switch (previous) {
            case WAITING -> {
                out.add(Decision.journal(in, null));
                lines.remove(task, groups.classFor(Requirement.keyOf(task.getTask())));
                finish(task, TaskState.CANCELLED, at);
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
            }
            case ASSIGNED, RUNNING -> {
                out.add(Decision.journal(in, null));
                AttemptRecord attempt = currentAttempt(task);
                end(attempt, AttemptOutcome.CANCELLED, null, at);
                finish(task, TaskState.CANCELLED, at);
                release(task, attempt);
                out.add(Decision.journalAndNotify(new AttemptRevoked(id, pool, attempt.getAttempt(),
                        attempt.getWorkerId(), attempt.getGeneration(), "cancelled", at), attempt.getWorkerId(), null));
                out.add(Decision.journal(new TaskCancelled(id, previous, in.getReason()), null));
                settle(List.of(), at, out);
            }
            default -> out.add(Admission.rejected("TaskCancelRequested", RejectionCode.FAILED_PRECONDITION, "taskId",
                    "task " + id + " already " + previous + "; only a waiting, assigned or running task can be cancelled",
                    id, null));
        }
        return out;
    }

    // ==== workers =================================================================================

    /**
     * A worker joins (or re-joins) the pool with generation previous + 1 and joins the group of its
     * labels (and the profile of its published resources); its free slots are offered to the
     * waiting tasks at once. A re-registration while the previous generation was live fences that
     * generation ({@code WorkerFenced}) and re-queues its attempts as new attempts
     * ({@code TaskFinished} LOST, WAITING). Classes whose reason to wait changed say so.
     * Heard at its {@code registeredAt} (one clock: tests, simulations); see {@link #register(WorkerRegistered, Instant)}.
     */
    public List<Decision> register(WorkerRegistered in) {
        return register(in, in.getRegisteredAt());
    }

    /**
     * A worker joins, as {@link #register(WorkerRegistered)}, heard by the scheduler at {@code heardAt}
     * on the scheduler's own clock: its silence (the eviction rule) counts from there, never from the
     * worker's clock.
     */
    public List<Decision> register(WorkerRegistered in, Instant heardAt) {
        List<Decision> out = new ArrayList<>(4);
        if (admission.refused("WorkerRegistered", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        String id = in.getWorkerId();
        Instant at = in.getRegisteredAt();
        out.add(Decision.journal(in, null));
        rememberPool();
        ensureReasons();
        Worker previous = workers.get(id);
        long generation = previous == null ? 1 : previous.generation() + 1;
        List<TaskRecord> lost = List.of();
        LinkedHashSet<WaitClass> touched = new LinkedHashSet<>();
        if (previous != null && previous.live()) {
            out.add(Decision.journalAndNotify(new WorkerFenced(id, pool, previous.generation(), generation, null, null,
                    "worker " + id + " registered again as generation " + generation + "; generation "
                            + previous.generation() + " is fenced and its " + previous.busy() + " attempt(s) are lost",
                    at), id, null));
            lost = loseAttempts(previous, at, out, "worker " + id + " generation " + previous.generation() + " is gone");
            touched.addAll(previous.profile().classes);
            groups.leave(previous);
            previous.clearRunning();
        }
        WorkerRecord record = new WorkerRecord(id, pool, in.getLabels(), in.getSlots(), in.getResources(), generation,
                WorkerState.ACTIVE, new ArrayList<>(), at,
                previous == null ? 0L : previous.lastAssignedSequence(), heardAt);
        Worker worker = new Worker(record);
        workers.put(id, worker);
        Profile profile = groups.join(worker);
        touched.addAll(profile.classes);
        store.putWorker(record);
        freed.add(profile);
        out.add(Decision.journal(new WorkerAccepted(id, generation), null));
        out.add(Decision.notify(new RegistrationAccepted(id, pool, generation, profile.labels().asMap(), in.getSlots(),
                at), id));
        requeue(lost, at, out, touched);
        return out;
    }

    /**
     * A live worker under its current generation refreshes its last heartbeat (the eviction clock,
     * see {@link #tick}): no decision, not journaled. Any other (unknown worker, left, or another generation) is answered with
     * {@code WorkerFenced}, journaled and sent to it, so it aborts what it runs and registers again.
     * Heard at its {@code sentAt} (one clock: tests, simulations); see {@link #heartbeat(WorkerHeartbeat, Instant)}.
     */
    public List<Decision> heartbeat(WorkerHeartbeat in) {
        return heartbeat(in, in.getSentAt());
    }

    /**
     * A heartbeat as {@link #heartbeat(WorkerHeartbeat)}, heard by the scheduler at {@code heardAt}
     * on the scheduler's own clock (the topology passes the wall-clock time it processes the
     * heartbeat at, the clock its ticks run on). Silence is counted from there: a worker whose clock
     * is behind is not evicted for it, and heartbeats queued behind a busy scheduler count from when
     * they are read, not from when they were sent.
     */
    public List<Decision> heartbeat(WorkerHeartbeat in, Instant heardAt) {
        List<Decision> out = new ArrayList<>(1);
        if (admission.refused("WorkerHeartbeat", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        String id = in.getWorkerId();
        Worker w = workers.get(id);
        String stale = admission.staleness(w, id, in.getGeneration());
        if (stale != null) {
            out.add(admission.fence(id, in.getGeneration(), null, null, stale, in.getSentAt()));
            return out;
        }
        if (heardAt.isAfter(w.record().getLastHeartbeat())) {
            w.record().setLastHeartbeat(heardAt);
            store.putWorker(w.record());
        }
        return out;
    }

    /**
     * A worker stops taking work. Its slots leave capacity at once (autoscaling should not count
     * slots that will never take a task); the attempts it runs finish normally and are reported as
     * {@code drainingBusy}. Draining twice is accepted and changes nothing.
     */
    public List<Decision> drain(WorkerDraining in) {
        List<Decision> out = new ArrayList<>(2);
        if (admission.refused("WorkerDraining", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        Worker w = admission.liveWorker("WorkerDraining", in.getWorkerId(), in.getGeneration(), in.getAt(), out);
        if (w == null) {
            return out;
        }
        out.add(Decision.journal(in, null));
        if (w.active()) {
            ensureReasons();
            LinkedHashSet<WaitClass> touched = new LinkedHashSet<>(w.profile().classes);
            groups.drain(w);
            store.putWorker(w.record());
            requeue(List.of(), in.getAt(), out, touched);
        }
        return out;
    }

    /**
     * A worker leaves: its capacity leaves its group (an empty group disappears), each attempt it
     * held is re-queued as a new attempt ({@code TaskFinished} LOST, WAITING) and placed if a slot
     * is free, and {@code WorkerRemoved} records why.
     */
    public List<Decision> leave(WorkerLeft in) {
        List<Decision> out = new ArrayList<>(4);
        if (admission.refused("WorkerLeft", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        in.setReason(Rules.shortened(in.getReason(), Rules.MAX_LEAVE_REASON_LENGTH));
        Worker w = admission.liveWorker("WorkerLeft", in.getWorkerId(), in.getGeneration(), in.getAt(), out);
        if (w == null) {
            return out;
        }
        Instant at = in.getAt();
        out.add(Decision.journal(in, null));
        out.add(Decision.journal(new WorkerRemoved(w.id(), w.generation(), WorkerState.LEFT,
                in.getReason() != null ? in.getReason() : "left"), null));
        ensureReasons();
        List<TaskRecord> lost = loseAttempts(w, at, out, "worker " + w.id() + " generation " + w.generation() + " left");
        LinkedHashSet<WaitClass> touched = new LinkedHashSet<>(w.profile().classes);
        groups.leave(w);
        w.clearRunning();
        w.state(WorkerState.LEFT);
        store.putWorker(w.record());
        requeue(lost, at, out, touched);
        return out;
    }

    // ==== attempts ================================================================================

    /** The worker began the attempt: ASSIGNED becomes RUNNING. */
    public List<Decision> started(AttemptStarted in) {
        List<Decision> out = new ArrayList<>(2);
        if (admission.refused("AttemptStarted", Rules.check(in), in.getPool(), in.getTaskId(), in.getWorkerId(), out)) {
            return out;
        }
        TaskRecord task = admission.current("AttemptStarted", in.getTaskId(), in.getAttempt(), in.getWorkerId(),
                in.getGeneration(), in.getAt(), out);
        if (task == null) {
            return out;
        }
        if (task.getState() == TaskState.RUNNING) {
            out.add(Admission.rejected("AttemptStarted", RejectionCode.FAILED_PRECONDITION, "attempt",
                    "attempt " + in.getAttempt() + " of task " + in.getTaskId() + " already started",
                    in.getTaskId(), in.getWorkerId()));
            return out;
        }
        String verdict = TimeCauses.startVerdict(task.getTask(), in.getAt(), "started", rules.startToleranceMs());
        out.add(Decision.journal(in, verdict));
        currentAttempt(task).setStartedAt(in.getAt());
        task.setState(TaskState.RUNNING);
        task.setUpdatedAt(in.getAt());
        store.putTask(task);
        leases().track(task);
        return out;
    }

    /** The attempt succeeded: the task is SUCCEEDED and the slot goes to the next waiting task. */
    public List<Decision> succeeded(AttemptSucceeded in) {
        List<Decision> out = new ArrayList<>(4);
        if (admission.refused("AttemptSucceeded", Rules.check(in), in.getPool(), in.getTaskId(), in.getWorkerId(), out)) {
            return out;
        }
        TaskRecord task = admission.current("AttemptSucceeded", in.getTaskId(), in.getAttempt(), in.getWorkerId(),
                in.getGeneration(), in.getAt(), out);
        if (task == null) {
            return out;
        }
        Instant at = in.getAt();
        out.add(Decision.journal(in, null));
        AttemptRecord attempt = currentAttempt(task);
        end(attempt, AttemptOutcome.SUCCEEDED, null, at);
        finish(task, TaskState.SUCCEEDED, at);
        release(task, attempt);
        out.add(Decision.journal(new TaskFinished(in.getTaskId(), attempt.getAttempt(), attempt.getWorkerId(),
                AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null),
                TimeCauses.lateness(task.getTask(), at, "finished")));
        settle(List.of(), at, out);
        return out;
    }

    /**
     * The attempt failed: the slot goes to the next waiting task; a retryable failure with attempts
     * left re-queues the task at its original place in line ({@code TaskFinished} FAILED, WAITING)
     * to run as the next attempt, else the task is FAILED. Every attempt's error stays in the record.
     */
    public List<Decision> failed(AttemptFailed in) {
        List<Decision> out = new ArrayList<>(4);
        if (admission.refused("AttemptFailed", Rules.check(in), in.getPool(), in.getTaskId(), in.getWorkerId(), out)) {
            return out;
        }
        in.setError(Rules.shortened(in.getError(), Rules.MAX_ERROR_LENGTH)); // bounded as journaled and stored
        TaskRecord task = admission.current("AttemptFailed", in.getTaskId(), in.getAttempt(), in.getWorkerId(),
                in.getGeneration(), in.getAt(), out);
        if (task == null) {
            return out;
        }
        Instant at = in.getAt();
        out.add(Decision.journal(in, null));
        AttemptRecord attempt = currentAttempt(task);
        end(attempt, AttemptOutcome.FAILED, in.getError(), at);
        release(task, attempt);
        retryOrFail(task, attempt, in.getError(), in.getRetryable(), at, out);
        settle(List.of(), at, out);
        return out;
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
     *   <li>every attempt whose lease ended (its task's {@code timeoutMs} after it started) is
     *       revoked ({@code AttemptRevoked} to its worker) and retried with backoff, or fails;</li>
     *   <li>every due timer fires: a delayed task joins its line ({@code TaskWaiting}), a task whose
     *       deadline came near moves ahead in it ({@code TaskWaiting});</li>
     *   <li>every finished task whose retention ({@link TimeRules#retentionMs}) ended is forgotten
     *       ({@code TaskForgotten}): its record leaves the store;</li>
     * </ol>
     * then freed slots go to the waiting tasks as usual. A tick with nothing due returns nothing.
     */
    public List<Decision> tick(Instant now) {
        List<Decision> out = new ArrayList<>();
        if (watchingSince == null) {
            watchingSince = now;
        }
        evictSilentWorkers(now, out);
        revokeExpiredLeases(now, out);
        fireTimers(now, out);
        retention.expire(now, TIMERS_PER_TICK, out);
        settle(List.of(), now, out);
        return out;
    }

    /**
     * The earliest time a tick would decide something other than an eviction (a lease ends, a
     * timer fires, a finished task is forgotten), or {@code null} when nothing is pending. For simulations, which tick exactly
     * then instead of every second; evictions depend on heartbeats, which the journal does not keep.
     */
    public Instant nextDue() {
        Leases.Lease lease = leases().first();
        long leaseEnds = lease == null ? Long.MAX_VALUE : lease.endsAt();
        long due = Math.min(leaseEnds, Math.min(timers.firstMillis(), retention.nextMillis()));
        return due == Long.MAX_VALUE ? null : Instant.ofEpochMilli(due);
    }

    private void evictSilentWorkers(Instant now, List<Decision> out) {
        List<Worker> silent = new ArrayList<>();
        for (Worker w : workers.values()) {
            if (w.live() && silence(w, now) >= rules.heartbeatTimeoutMs()) {
                silent.add(w);
            }
        }
        silent.sort(Comparator.comparing(Worker::id));
        for (Worker w : silent) {
            evict(w, "evicted: no heartbeat for " + Durations.words(silence(w, now)), now, out);
        }
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
        Worker w = workers.get(workerId);
        if (w != null && w.live()) {
            evict(w, reason, at, out);
        }
        return out;
    }

    private long silence(Worker w, Instant now) {
        Instant last = w.record().getLastHeartbeat();
        Instant since = last.isAfter(watchingSince) ? last : watchingSince;
        return now.toEpochMilli() - since.toEpochMilli();
    }

    private void evict(Worker w, String why, Instant now, List<Decision> out) {
        long stale = w.generation();
        long next = stale + 1;
        ensureReasons();
        out.add(Decision.journal(new WorkerRemoved(w.id(), next, WorkerState.EVICTED, why), null));
        out.add(Decision.journalAndNotify(new WorkerFenced(w.id(), pool, stale, null, null, null,
                why + "; generation " + stale + " is fenced and its " + w.busy() + " attempt(s) are lost; register again",
                now), w.id(), null));
        List<TaskRecord> lost = loseAttempts(w, now, out, "worker " + w.id() + " " + why);
        LinkedHashSet<WaitClass> touched = new LinkedHashSet<>(w.profile().classes);
        groups.leave(w);
        w.clearRunning();
        w.state(WorkerState.EVICTED);
        w.record().setGeneration(next);
        store.putWorker(w.record());
        requeue(lost, now, out, touched);
    }

    private void revokeExpiredLeases(Instant now, List<Decision> out) {
        for (Leases.Lease lease : leases().expired(now.toEpochMilli())) {
            TaskRecord task = store.task(lease.taskId());
            TaskState state = task == null ? null : task.getState();
            AttemptRecord attempt = state == TaskState.ASSIGNED || state == TaskState.RUNNING ? currentAttempt(task) : null;
            if (attempt == null || attempt.getAttempt() != lease.attempt()) {
                leases().end(lease.taskId()); // cannot happen: every end of an attempt ends its lease
                continue;
            }
            String why = "lease expired: attempt " + attempt.getAttempt() + " ran longer than its timeout of "
                    + Durations.words(task.getTask().getTimeoutMs());
            out.add(Decision.journalAndNotify(new AttemptRevoked(lease.taskId(), pool, attempt.getAttempt(),
                    attempt.getWorkerId(), attempt.getGeneration(), why, now), attempt.getWorkerId(), null));
            end(attempt, AttemptOutcome.REVOKED, why, now);
            release(task, attempt);
            retryOrFail(task, attempt, why, true, now, out);
        }
    }

    /** The leases of the running attempts, read from their tasks (one read per busy slot) on first use. */
    private Leases leases() {
        if (leases == null) {
            leases = new Leases();
            for (Worker w : workers.values()) {
                if (!w.live()) {
                    continue;
                }
                for (AttemptRef ref : w.running()) {
                    TaskRecord task = store.task(ref.getTaskId());
                    if (task != null) {
                        leases.track(task);
                    }
                }
            }
        }
        return leases;
    }

    /** Timers fired per tick at most, so one tick stays short; the rest fire on the next. */
    private static final int TIMERS_PER_TICK = 10_000;

    /** Delayed tasks join their lines; tasks whose deadline came near move ahead in theirs. */
    private void fireTimers(Instant now, List<Decision> out) {
        List<TaskRecord> released = new ArrayList<>();
        for (TaskRecord task : lines.due(now, TIMERS_PER_TICK)) {
            if (!Lines.inLine(task)) {
                released.add(task);
                continue;
            }
            String reason = "its deadline " + task.getTask().getDeadline() + " is less than "
                    + Durations.words(rules.deadlineLeadMs())
                    + " away: it moved ahead of the tasks without a near deadline";
            lines.moveAhead(task, groups.classFor(Requirement.keyOf(task.getTask())), now, reason);
            out.add(Decision.journal(new TaskWaiting(task.getTask().getTaskId(), reason), null));
        }
        if (!released.isEmpty()) {
            requeue(released, now, out, null);
        }
    }

    /**
     * After an attempt ended badly (failed, or its lease expired): another attempt after the
     * backoff when the failure is retryable and attempts are left ({@code TaskFinished} WAITING,
     * the task waits outside its line until then), else the task FAILED. Every attempt that ended
     * without success counts (failed, lost with its worker, revoked at its lease's end).
     */
    private void retryOrFail(TaskRecord task, AttemptRecord attempt, String error, boolean retryable, Instant at,
                             List<Decision> out) {
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
                lines.delay(task, due, at, reason);
                out.add(Decision.journal(new TaskWaiting(id, reason), null));
            } else {
                task.setState(TaskState.WAITING);
                requeue(List.of(task), at, out, null);
            }
        } else {
            finish(task, TaskState.FAILED, at);
            out.add(Decision.journal(new TaskFinished(id, attempt.getAttempt(), attempt.getWorkerId(),
                    attempt.getOutcome(), TaskState.FAILED, error),
                    retryable ? retry.exhausted(spent) : "the failure is not retryable"));
        }
    }

    // ==== reads ===================================================================================

    /** Capacity, busy and waiting of the pool and of each group (ordered by label key). */
    public PoolSnapshot snapshot() {
        List<Group> all = groups.all();
        all.sort(Comparator.comparing(g -> g.labels().key()));
        List<GroupSnapshot> snapshots = new ArrayList<>(all.size());
        int capacity = 0;
        int busy = 0;
        int draining = 0;
        for (Group g : all) {
            HashSet<WaitClass> served = new HashSet<>();
            long waiting = 0;
            for (Profile p : g.profiles()) {
                for (WaitClass c : p.classes) {
                    if (served.add(c)) {
                        waiting += c.count;
                    }
                }
            }
            snapshots.add(new GroupSnapshot(g.labels().asMap(), g.capacity(), g.busy(), g.activeWorkers(), waiting,
                    g.drainingBusy()));
            capacity += g.capacity();
            busy += g.busy();
            draining += g.drainingBusy();
        }
        return new PoolSnapshot(pool, capacity, busy, classes.waiting(), List.copyOf(snapshots), draining);
    }

    /**
     * The requirement classes that have waiting tasks, ordered by class key: how many wait, since
     * when the first in line waits, and why. Costs one task read per class, never the backlog.
     */
    public List<ClassSnapshot> classes() {
        List<WaitClass> waiting = new ArrayList<>(classes.waitingClasses());
        waiting.sort(Comparator.comparing(WaitClass::key));
        List<ClassSnapshot> result = new ArrayList<>(waiting.size());
        for (WaitClass c : waiting) {
            TaskRecord head = store.task(c.headTaskId);
            Instant submitted = head == null ? null : head.getTask().getSubmittedAt();
            Instant since = head == null || head.getWaitingSince() == null ? submitted : head.getWaitingSince();
            Requirement r = c.requirement();
            result.add(new ClassSnapshot(c.key(), r.labels(), r.resources(), c.count, c.capacity, c.activeWorkers(),
                    c.headTaskId, submitted, since, reasonOf(c).text()));
        }
        return List.copyOf(result);
    }

    /** A copy of the worker's record (LEFT workers included), or {@code null} for an unknown id. */
    public WorkerRecord worker(String workerId) {
        Worker w = workers.get(workerId);
        if (w == null) {
            return null;
        }
        WorkerRecord r = w.record();
        List<AttemptRef> running = new ArrayList<>(r.getRunning().size());
        for (AttemptRef ref : r.getRunning()) {
            running.add(new AttemptRef(ref.getTaskId(), ref.getAttempt()));
        }
        return new WorkerRecord(r.getWorkerId(), r.getPool(), new HashMap<>(r.getLabels()), r.getSlots(),
                r.getResources(), r.getGeneration(), r.getState(), running, r.getRegisteredAt(),
                r.getLastAssignedSequence(), r.getLastHeartbeat());
    }

    // ==== placement ===============================================================================

    /**
     * Restores the invariant after slots freed ({@link #freed}) or tasks joined lines ({@code
     * joined}): repeatedly, among the classes that could have changed, the one whose head is oldest
     * and that has a free profile sends its head to the free profile it ranks first. Only those
     * classes are looked at: every other line already had no free profile and still has none, so
     * the cost is the number of classes the freed profiles serve, not the backlog.
     */
    private void settle(List<WaitClass> joined, Instant at, List<Decision> out) {
        candidates.clear();
        for (Profile p : freed) {
            if (!p.removed) {
                candidates.addAll(p.classes);
            }
        }
        freed.clear();
        candidates.addAll(joined);
        while (true) {
            WaitClass best = null;
            for (WaitClass c : candidates) {
                if (c.servable() && (best == null || c.headPlace.before(best.headPlace))) {
                    best = c;
                }
            }
            if (best == null) {
                break;
            }
            TaskRecord task = store.task(best.headTaskId);
            Profile profile = best.bestFreeProfile(task.getTask().getPreferences());
            classes.takeHead(best);
            assign(task, profile, at, out);
        }
        candidates.clear();
    }

    /**
     * Puts tasks (already set back to WAITING) into their lines at their original order, lets
     * {@link #settle} place what it can, and says why each remaining one waits. After a worker
     * registered, drained or left ({@code touched}: the classes its profiles served, else
     * {@code null}), recomputes the reason of those classes and of every class no worker can run,
     * and journals, for each class whose reason changed, one {@code TaskWaiting} for its head.
     */
    private void requeue(List<TaskRecord> tasks, Instant at, List<Decision> out, LinkedHashSet<WaitClass> touched) {
        List<WaitClass> joined = new ArrayList<>(tasks.size());
        for (TaskRecord task : tasks) {
            WaitClass c = groups.classFor(Requirement.keyOf(task.getTask()));
            lines.enqueue(task, c, at, null);
            joined.add(c);
        }
        settle(joined, at, out);
        List<WaitClass> changed = touched == null ? List.of() : recomputeReasons(touched);
        HashSet<String> told = new HashSet<>();
        for (int i = 0; i < tasks.size(); i++) {
            TaskRecord now = store.task(tasks.get(i).getTask().getTaskId());
            if (now.getState() == TaskState.WAITING) {
                WaitClass c = joined.get(i);
                String id = now.getTask().getTaskId();
                WaitReason r = reasonOf(c);
                String reason = id.equals(c.headTaskId) ? r.forPlace(1) : r.backInLine(c.count);
                now.setWaitingReason(reason);
                store.putTask(now);
                out.add(Decision.journal(new TaskWaiting(id, reason), null));
                told.add(id);
            }
        }
        for (WaitClass c : changed) {
            if (c.count > 0 && !told.contains(c.headTaskId)) {
                TaskRecord head = store.task(c.headTaskId);
                String reason = c.reason.forPlace(1);
                if (!reason.equals(head.getWaitingReason())) {
                    head.setWaitingReason(reason);
                    store.putTask(head);
                    out.add(Decision.journal(new TaskWaiting(c.headTaskId, reason), null));
                }
            }
        }
    }

    /**
     * Recomputes the reasons of the waiting classes a worker change touched, plus every waiting
     * class no ACTIVE worker can run (their reason counts every worker of the pool); returns those
     * whose reason changed, head oldest first. A class that was empty before has no reason to
     * change from: its tasks are being told theirs.
     */
    private List<WaitClass> recomputeReasons(LinkedHashSet<WaitClass> touched) {
        for (WaitClass c : classes.waitingClasses()) {
            if (c.capacity == 0) {
                touched.add(c);
            }
        }
        List<WaitClass> changed = new ArrayList<>();
        for (WaitClass c : touched) {
            if (c.count == 0) {
                continue;
            }
            WaitReason before = c.reason;
            c.reason = WaitReason.of(pool, c, groups.view());
            if (before != null && !before.equals(c.reason)) {
                changed.add(c);
            }
        }
        changed.sort(Comparator.comparing(c -> c.headPlace));
        return changed;
    }

    /** The reason of a class with waiting tasks (or about to have one), computed if not known. */
    private WaitReason reasonOf(WaitClass c) {
        if (c.reason == null) {
            c.reason = WaitReason.of(pool, c, groups.view());
        }
        return c.reason;
    }

    /**
     * Makes sure every waiting class knows its reason before a worker change, so the change can be
     * told apart from what held before (after loading, reasons are computed when first needed).
     */
    private void ensureReasons() {
        for (WaitClass c : classes.waitingClasses()) {
            reasonOf(c);
        }
    }








    /** Gives the task's next attempt to the profile's preferred worker (which has a free slot). */
    private void assign(TaskRecord task, Profile profile, Instant at, List<Decision> out) {
        Worker w = profile.pick();
        String id = task.getTask().getTaskId();
        int number = task.getAttempts().size() + 1;
        Map<String, String> labels = profile.labels().asMap();
        task.getAttempts().add(new AttemptRecord(number, w.id(), w.generation(), labels, at, null, null, null, null));
        task.setState(TaskState.ASSIGNED);
        task.setWaitingReason(null);
        task.setWaitingSince(null);
        task.setUpdatedAt(at);
        lines.dropTimer(task);
        store.putTask(task);
        leases().track(task);
        groups.assign(w, new AttemptRef(id, number), nextSequence());
        store.putWorker(w.record());
        TaskSubmitted s = task.getTask();
        Instant startAt = s.getStartAt() != null && s.getStartAt().isAfter(at) ? s.getStartAt() : null;
        String cause = startAt != null ? "fixed start at " + startAt + ": the slot is held for it until then"
                : s.getStartAt() != null ? TimeCauses.startVerdict(s, at, "assigned", rules.startToleranceMs())
                : TimeCauses.lateness(s, at, "assigned");
        out.add(Decision.journalAndNotify(new AttemptAssigned(id, pool, number, w.id(), w.generation(), labels,
                s.getPayload(), s.getDeadline(), s.getTimeoutMs(), at, startAt), w.id(), cause));
    }

    /** Frees the slot of an attempt that just ended; an ACTIVE worker's freed slot is offered on settle. */
    private void release(TaskRecord task, AttemptRecord attempt) {
        leases().end(task.getTask().getTaskId());
        Worker w = workers.get(attempt.getWorkerId());
        if (w == null || !w.live() || w.generation() != attempt.getGeneration()) {
            return; // a current attempt is always held by its live worker; nothing to free otherwise
        }
        groups.release(w, task.getTask().getTaskId(), attempt.getAttempt());
        store.putWorker(w.record());
        if (w.active()) {
            freed.add(w.profile());
        }
    }

    /**
     * Ends every attempt a worker holds as LOST; a task with attempts left is set back to WAITING
     * and returned (the caller re-queues them once the worker is out of its group, at once: losing
     * its worker is not the task's failure, so no backoff), the others FAILED.
     */
    private List<TaskRecord> loseAttempts(Worker w, Instant at, List<Decision> out, String cause) {
        List<TaskRecord> lost = new ArrayList<>(w.busy());
        for (AttemptRef ref : w.running()) {
            TaskRecord task = store.task(ref.getTaskId());
            AttemptRecord attempt = currentAttempt(task);
            end(attempt, AttemptOutcome.LOST, null, at);
            leases().end(ref.getTaskId());
            int spent = RetryRule.spent(task);
            RetryRule retry = RetryRule.of(task);
            if (retry.retries(spent, true)) {
                task.setState(TaskState.WAITING);
                lost.add(task);
                out.add(Decision.journal(new TaskFinished(ref.getTaskId(), ref.getAttempt(), w.id(),
                        AttemptOutcome.LOST, TaskState.WAITING, null), cause));
            } else {
                finish(task, TaskState.FAILED, at);
                out.add(Decision.journal(new TaskFinished(ref.getTaskId(), ref.getAttempt(), w.id(),
                        AttemptOutcome.LOST, TaskState.FAILED, cause), cause + "; " + retry.exhausted(spent)));
            }
        }
        return lost;
    }

    // ==== small helpers ===========================================================================

    static AttemptRecord currentAttempt(TaskRecord task) {
        List<AttemptRecord> attempts = task.getAttempts();
        return attempts.get(attempts.size() - 1);
    }

    private static void end(AttemptRecord attempt, AttemptOutcome outcome, String error, Instant at) {
        attempt.setOutcome(outcome);
        attempt.setError(error);
        attempt.setFinishedAt(at);
    }

    private void finish(TaskRecord task, TaskState state, Instant at) {
        task.setState(state);
        task.setWaitingReason(null);
        task.setWaitingSince(null);
        task.setUpdatedAt(at);
        store.putTask(task);
        retention.finished(task, at);
    }

    private long nextSequence() {
        long sequence = counters.getNextSequence();
        counters.setNextSequence(sequence + 1);
        store.putPool(counters);
        poolStored = true;
        return sequence;
    }

    /** Stores the pool's record if it has none yet, so the punctuator knows the pool (it may have workers only). */
    private void rememberPool() {
        if (!poolStored) {
            store.putPool(counters);
            poolStored = true;
        }
    }
}
