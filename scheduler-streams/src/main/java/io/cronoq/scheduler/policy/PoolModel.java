package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.sharing.Tenants;
import io.cronoq.scheduler.policy.limits.Limits;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.time.Retention;
import io.cronoq.scheduler.policy.time.Leases;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRecord;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one pool's policy knows, loaded from its {@link PoolStore}: its workers (and which of them
 * are leaving), their groups and profiles, the requirement classes and their lines, timers,
 * retention and counters; and the small steps on a task's record that every part of the policy
 * takes the same way (its current attempt, ending an attempt, finishing a task, the next sequence
 * number). A finished task that has children is noted ({@link #endedParents}) for them to be told. Every change goes through the store. It also knows the scheduler's own time of what is
 * being applied ({@link #heardAt()}), from which the preemption grace of a task that starts waiting
 * counts. Not thread-safe: one pool, one thread.
 */
final class PoolModel {

    final String pool;
    final PoolStore store;
    final TimeRules rules;
    final Map<String, Worker> workers = new HashMap<>();
    /** The workers that left holding attempts and wait for their reports ({@link Leaves}), by id: few, and in order. */
    final Map<String, Worker> leaving = new TreeMap<>();
    final ClassIndex classes;
    /** The pool's tenants, its sharing policy, and what each tenant holds. */
    final Tenants tenants;
    /** The pool's concurrency keys and rate limits, and the lines they hold back. */
    final Limits<WaitClass> limits;
    final Groups groups;
    final TimerQueue timers;
    final Lines lines;
    final Retention retention;
    final Admission admission;
    private final PoolRecord counters;
    private boolean poolStored;
    /** The running attempts' leases, read when first needed (a snapshot never needs them); see {@link #leases()}. */
    private Leases leases;
    /** The scheduler's own time of the input or tick being applied; see {@link #heardAt()}. */
    private Instant heardAt;
    /** Tasks with children that reached a final state during this input, whose children are yet to be told. */
    final java.util.ArrayDeque<TaskRecord> endedParents = new java.util.ArrayDeque<>();

    PoolModel(String pool, PoolStore store, TimeRules rules) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.store = Objects.requireNonNull(store, "store");
        this.rules = Objects.requireNonNull(rules, "rules");
        this.timers = store.timers();
        this.admission = new Admission(pool, store, workers);
        PoolRecord stored = store.pool();
        this.poolStored = stored != null;
        this.counters = stored != null ? stored : new PoolRecord(pool, 1L, new java.util.ArrayList<>(), 0L,
                new java.util.ArrayList<>());
        counters.setWaitingGangs(new java.util.ArrayList<>(counters.getWaitingGangs())); // changed in place
        counters.setAwaitedParents(new java.util.ArrayList<>(counters.getAwaitedParents())); // changed in place
        this.tenants = new Tenants(pool);
        tenants.load(store.sharing());
        this.limits = new Limits<>(pool, store);
        this.classes = new ClassIndex(store.waiting(), tenants, limits);
        tenants.watch(classes);
        this.groups = new Groups(classes, tenants, limits);
        this.lines = new Lines(classes, timers, store, rules, this::heardAt);
        this.retention = new Retention(store, rules);
        for (WorkerRecord r : store.workers()) {
            Worker w = new Worker(r);
            workers.put(w.id(), w);
            if (w.live()) {
                groups.join(w);
            }
            if (w.leaving()) {
                leaving.put(w.id(), w);
            }
        }
        for (Map.Entry<String, Long> e : store.waiting().counts().entrySet()) {
            if (e.getValue() > 0) {
                classes.load(groups.classFor(e.getKey()), e.getValue());
            }
        }
        limits.loaded(classes.waitingClasses());
        // Class reasons are computed when first needed: the store alone determines them.
    }

    /**
     * The scheduler's own time of what is being applied: when it heard the input ({@code heardAt} of
     * {@link PoolScheduler#apply}), or the time of the tick, eviction or end of a leave grace. Null
     * outside them (this package's tests call the parts directly), where the policy's own time of
     * the step stands in.
     */
    Instant heardAt() {
        return heardAt;
    }

    /** Sets {@link #heardAt()}, at the start of an input or tick; null once it is done. */
    void heard(Instant at) {
        heardAt = at;
    }

    /** The class whose line a task waits in: its requirement's, in its tenant's lines, with its limits. */
    WaitClass classOf(TaskRecord task) {
        TaskSubmitted s = task.getTask();
        return groups.classFor(RecordedPlaces.lineKey(s), Requirement.keyOf(s), s);
    }

    /** The leases of the running attempts, read from their tasks (one read per busy slot) on first use. */
    Leases leases() {
        if (leases == null) {
            leases = new Leases(rules.gangStartTimeoutMs());
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

    /** The task's attempt that is running, assigned, or ended last. */
    static AttemptRecord currentAttempt(TaskRecord task) {
        List<AttemptRecord> attempts = task.getAttempts();
        return attempts.get(attempts.size() - 1);
    }

    /** Since when a waiting task waits: its last return to waiting, else its submission. */
    static Instant waitingSince(TaskRecord task) {
        return task.getWaitingSince() != null ? task.getWaitingSince() : task.getTask().getSubmittedAt();
    }

    /**
     * Since when a waiting task waits on the scheduler's own clock, where its preemption grace counts
     * from: when the scheduler last saw it start waiting; a record of an older release, which does
     * not say, falls back to {@link #waitingSince}.
     */
    static Instant queuedAt(TaskRecord task) {
        return task.getQueuedAt() != null ? task.getQueuedAt() : waitingSince(task);
    }

    /** Records how an attempt ended. */
    static void end(AttemptRecord attempt, AttemptOutcome outcome, String error, Instant at) {
        attempt.setOutcome(outcome);
        attempt.setError(error);
        attempt.setFinishedAt(at);
    }

    /** A task reaches a final state: stored, and its retention starts. */
    void finish(TaskRecord task, TaskState state, Instant at) {
        task.setState(state);
        task.setWaitingReason(null);
        task.setWaitingSince(null);
        task.setQueuedAt(null);
        task.setUpdatedAt(at);
        store.putTask(task);
        retention.finished(task, at);
        if (task.getChildren() > 0) {
            endedParents.add(task);
        }
    }

    /** How many of the pool's tasks are BLOCKED, waiting for their parents. */
    long blocked() {
        return counters.getBlocked();
    }

    /** One more ({@code +1}) or one fewer ({@code -1}) task is BLOCKED. */
    void blocked(int change) {
        counters.setBlocked(Math.max(0, counters.getBlocked() + change));
        storeCounters();
    }

    /** The pool's next sequence number (a task's order of submission, a worker's last assignment). */
    long nextSequence() {
        long sequence = counters.getNextSequence();
        counters.setNextSequence(sequence + 1);
        store.putPool(counters);
        poolStored = true;
        return sequence;
    }

    /** The ids of the gangs that wait to be placed, as stored with the pool's counters (change, then {@link #storeCounters}). */
    List<String> waitingGangIds() {
        return counters.getWaitingGangs();
    }

    /**
     * The ids of tasks this pool does not know yet that children of other pools watch, awaited for a grace (see
     * {@code Dependencies}); change, then {@link #storeCounters}.
     */
    List<String> awaitedParents() {
        return counters.getAwaitedParents();
    }

    /** Stores the pool's counters after {@link #waitingGangIds} changed. */
    void storeCounters() {
        store.putPool(counters);
        poolStored = true;
    }

    /** Stores the pool's record if it has none yet, so the punctuator knows the pool (it may have workers only). */
    void rememberPool() {
        if (!poolStored) {
            store.putPool(counters);
            poolStored = true;
        }
    }
}
