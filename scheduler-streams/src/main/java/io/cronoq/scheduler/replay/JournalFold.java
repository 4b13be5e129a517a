package io.cronoq.scheduler.replay;

import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Folds journal entries, in order, into the state they describe: the pools, tasks with their
 * attempts, workers, and the groups they form. It reads no clock and calls no placement code: the
 * journal alone says what happened, so folding it up to any entry gives the state at that point in
 * time.
 * A task leaves the fold when it is forgotten ({@code TaskForgotten}), as it leaves the stores;
 * a fold {@linkplain #keepingHistory() keeping history} keeps it instead, for timelines.
 */
public final class JournalFold {

    /** One attempt as the journal tells it. */
    public record Attempt(int attempt, String workerId, long generation, Map<String, String> group,
                          Instant assignedAt, Instant startedAt, Instant finishedAt, AttemptOutcome outcome) {}

    /**
     * One task as the journal tells it; {@code readyAt} is when it could first start: its submission, or for a task
     * with parents when they released it ({@code null} while it is blocked, or was cancelled blocked).
     */
    public record Task(String taskId, String pool, Map<String, String> labels, TaskState state,
                       Instant submittedAt, List<Attempt> attempts, String waitingReason, Instant readyAt) {}

    /**
     * One worker as the journal tells it; {@code running} holds "task#attempt" names. A worker that
     * left holding attempts is DRAINING until it is removed, as in the stores.
     */
    public record Worker(String workerId, String pool, Map<String, String> labels, int slots, long generation,
                         WorkerState state, Set<String> running) {}

    /** A group of a pool: its labels, capacity (active workers' slots) and busy slots. */
    public record GroupCounts(String pool, Map<String, String> labels, int capacity, int busy, int workers) {}

    private final Map<String, Task> tasks = new LinkedHashMap<>();
    private final SortedSet<String> pools = new TreeSet<>();
    /** Whether forgotten tasks stay (history) or leave (the stores' state). */
    private boolean keepForgotten;
    /** With {@link #keepForgotten}: ids forgotten and not submitted again since. */
    private final Set<String> forgotten = new HashSet<>();
    private int resubmissions;
    private final Map<String, Worker> workers = new LinkedHashMap<>();
    private final Map<String, WorkerRegistered> pendingRegistrations = new HashMap<>();
    private Instant lastAt;

    /**
     * A fold of every task the journal names, forgotten ones included (for timelines and wait
     * statistics over a journal longer than the retention). A forgotten id submitted again is a new
     * task; the earlier one stays in {@link #tasks()} under a key of its own. ({@code new JournalFold()}
     * folds the state the stores hold: a forgotten task leaves it.)
     */
    public static JournalFold keepingHistory() {
        JournalFold fold = new JournalFold();
        fold.keepForgotten = true;
        return fold;
    }

    /**
     * Applies one journal record, each of its entries in order ({@link Journal#entries}); records
     * must come in journal order per pool. Returns whether the fold took any of them: false for an
     * input that decides nothing by itself (the decision journaled after it does), a decision that
     * changes no task or worker, a policy of a pool it knew, or an entry about a task or worker it
     * does not hold.
     */
    public boolean apply(JournalEntry record) {
        boolean took = false;
        for (JournalEntry entry : Journal.entries(record)) {
            took |= applyEntry(entry);
        }
        return took;
    }

    private boolean applyEntry(JournalEntry entry) {
        String pool = entry.getPool();
        Instant at = entry.getAt();
        lastAt = at;
        Object event = entry.getEvent();
        return switch (JournalKind.of(event)) {
            case TASK_SUBMITTED -> {
                pools.add(pool); // journaled only when accepted: the scheduler keeps the pool from here on
                yield submitted(pool, (TaskSubmitted) event);
            }
            case GANG_SUBMITTED -> { // accepted whole: each member is a waiting task, as if submitted alone
                pools.add(pool);
                for (TaskSubmitted member : ((io.cronoq.events.GangSubmitted) event).getMembers()) {
                    submitted(pool, member);
                }
                yield true;
            }
            case TASK_WAITING -> waiting(pool, (TaskWaiting) event, at);
            case TASK_BLOCKED -> updateTask(pool, Journal.taskId(event), t -> new Task(t.taskId(), t.pool(), t.labels(),
                    TaskState.BLOCKED, t.submittedAt(), t.attempts(), ((io.cronoq.events.TaskBlocked) event).getReason(),
                    t.readyAt()));
            case ATTEMPT_ASSIGNED -> assigned(pool, (AttemptAssigned) event);
            case ATTEMPT_STARTED -> started(pool, (AttemptStarted) event);
            case TASK_FINISHED -> {
                TaskFinished e = (TaskFinished) event;
                yield finishAttempt(pool, e.getTaskId(), e.getAttempt(), e.getOutcome(), e.getState(), at);
            }
            case ATTEMPT_REVOKED -> {
                AttemptRevoked e = (AttemptRevoked) event;
                yield finishAttempt(pool, e.getTaskId(), e.getAttempt(), AttemptOutcome.REVOKED, null, at);
            }
            case TASK_FORGOTTEN -> forgot(pool, (TaskForgotten) event);
            case TASK_CANCELLED -> updateTask(pool, Journal.taskId(event), t -> new Task(t.taskId(), t.pool(),
                    t.labels(), TaskState.CANCELLED, t.submittedAt(), t.attempts(), null, t.readyAt()));
            case WORKER_REGISTERED -> {
                WorkerRegistered e = (WorkerRegistered) event;
                pendingRegistrations.put(StoreNames.workerKey(pool, e.getWorkerId()), e); // it counts once accepted
                pools.add(pool); // journaled only when accepted: the scheduler keeps the pool from here on
                yield true;
            }
            case WORKER_ACCEPTED -> accepted(pool, (WorkerAccepted) event);
            case WORKER_DRAINING -> updateWorker(pool, Journal.workerId(event), WorkerState.DRAINING, null);
            // An accepted leave: the worker takes nothing new, as a draining one, until its WorkerRemoved
            // (at once when it held nothing; else when its last attempt ends or its leave grace is over).
            case WORKER_LEFT -> updateWorker(pool, Journal.workerId(event), WorkerState.DRAINING, null);
            // An eviction bumps the generation (it fences the evicted one); leaving keeps it.
            case WORKER_REMOVED -> updateWorker(pool, Journal.workerId(event), ((WorkerRemoved) event).getState(),
                    ((WorkerRemoved) event).getGeneration());
            // Inputs whose effect is the decision journaled after them, and decisions that change no task
            // or worker: a refusal, a duplicate, a fenced report.
            case TASK_CANCEL_REQUESTED, ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, DUPLICATE_SUBMISSION,
                    INPUT_REJECTED, WORKER_FENCED, REGISTRATION_REJECTED -> false;
            // A watch changes no task; a parent's end changes its child by the decision journaled after it
            // (released: TaskWaiting or AttemptAssigned; cancelled: TaskCancelled), or not at all.
            case PARENT_WATCHED, PARENT_ENDED -> false;
            // How a pool is shared changes no task or worker by itself (the assignments and preemptions it
            // causes are journaled after it), nor do its limits; but an accepted one makes its pool, as in the
            // stores: a pool's policy may come before any worker or task.
            case SHARING_POLICY_SET, LIMIT_SET -> pools.add(pool);
        };
    }

    private boolean submitted(String pool, TaskSubmitted e) {
        String key = StoreNames.taskKey(pool, e.getTaskId());
        if (forgotten.remove(key)) {
            tasks.put(key + "#earlier-" + (++resubmissions), tasks.remove(key));
        }
        tasks.put(key, new Task(e.getTaskId(), pool, Map.copyOf(e.getLabels()), TaskState.WAITING,
                e.getSubmittedAt(), List.of(), null, e.getAfter().isEmpty() ? e.getSubmittedAt() : null));
        return true;
    }

    private boolean waiting(String pool, TaskWaiting e, Instant at) {
        // A blocked task told to wait was released by its parents: it waits in its line (or on its timer) now.
        return updateTask(pool, e.getTaskId(), t -> t.state() == TaskState.BLOCKED
                ? new Task(t.taskId(), t.pool(), t.labels(), TaskState.WAITING, t.submittedAt(), t.attempts(),
                        e.getReason(), at)
                : new Task(t.taskId(), t.pool(), t.labels(), t.state(), t.submittedAt(), t.attempts(), e.getReason(),
                        t.readyAt()));
    }

    private boolean assigned(String pool, AttemptAssigned e) {
        Attempt attempt = new Attempt(e.getAttempt(), e.getWorkerId(), e.getGeneration(), Map.copyOf(e.getGroup()),
                e.getAssignedAt(), null, null, null);
        updateTask(pool, e.getTaskId(), t -> withAttempt(t, TaskState.ASSIGNED, attempt));
        worker(pool, e.getWorkerId()).running().add(Journal.attemptKey(e.getTaskId(), e.getAttempt()));
        return true;
    }

    private boolean started(String pool, AttemptStarted e) {
        return updateTask(pool, e.getTaskId(), t -> {
            Attempt current = attempt(t, e.getAttempt());
            return current == null ? t : withAttempt(t, TaskState.RUNNING, new Attempt(current.attempt(),
                    current.workerId(), current.generation(), current.group(), current.assignedAt(), e.getAt(),
                    null, null));
        });
    }

    private boolean forgot(String pool, TaskForgotten e) {
        if (keepForgotten) {
            return forgotten.add(StoreNames.taskKey(pool, e.getTaskId()));
        }
        return tasks.remove(StoreNames.taskKey(pool, e.getTaskId())) != null; // its retention ended: the stores dropped its record
    }

    private boolean accepted(String pool, WorkerAccepted e) {
        WorkerRegistered registration = pendingRegistrations.remove(StoreNames.workerKey(pool, e.getWorkerId()));
        Worker previous = workers.get(StoreNames.workerKey(pool, e.getWorkerId()));
        Set<String> running = previous == null ? new LinkedHashSet<>() : previous.running();
        workers.put(StoreNames.workerKey(pool, e.getWorkerId()), new Worker(e.getWorkerId(), pool,
                Map.copyOf(registration.getLabels()), registration.getSlots(), e.getGeneration(),
                WorkerState.ACTIVE, running));
        return true;
    }

    /** Applies every entry, in order. */
    public void applyAll(Iterable<JournalEntry> entries) {
        entries.forEach(this::apply);
    }

    /**
     * The tasks by pool/id, the key the tasks store uses (a history-keeping fold keeps an earlier
     * task of a reused id under a key of its own).
     */
    public Map<String, Task> tasks() {
        return tasks;
    }

    /** The task {@code taskId} of {@code pool}, or {@code null}. */
    public Task task(String pool, String taskId) {
        return tasks.get(StoreNames.taskKey(pool, taskId));
    }

    /**
     * Every pool the journal named in an accepted input (a task, a worker, a sharing policy or a limit), sorted:
     * the pools the stores hold, which keep a pool from its first such input on, policy before any fleet included.
     */
    public SortedSet<String> pools() {
        return Collections.unmodifiableSortedSet(pools);
    }

    public Collection<Worker> workers() {
        return workers.values();
    }

    /** The time of the last entry applied, or null before the first. */
    public Instant at() {
        return lastAt;
    }

    /** The groups of every pool: workers with exactly the same labels; only active workers add capacity. */
    public List<GroupCounts> groups() {
        Map<String, Map<Map<String, String>, int[]>> byPool = new TreeMap<>();
        for (Worker w : workers.values()) {
            if (w.state() == WorkerState.LEFT || w.state() == WorkerState.EVICTED) {
                continue;
            }
            int[] sums = byPool.computeIfAbsent(w.pool(), p -> new LinkedHashMap<>())
                    .computeIfAbsent(new TreeMap<>(w.labels()), l -> new int[3]);
            sums[0] += w.state() == WorkerState.ACTIVE ? w.slots() : 0;
            sums[1] += w.running().size();
            sums[2] += 1;
        }
        List<GroupCounts> groups = new ArrayList<>();
        byPool.forEach((pool, byLabels) -> byLabels.forEach((labels, sums) ->
                groups.add(new GroupCounts(pool, labels, sums[0], sums[1], sums[2]))));
        return groups;
    }

    private boolean finishAttempt(String pool, String taskId, int number, AttemptOutcome outcome, TaskState state,
                                  Instant at) {
        Task task = tasks.get(StoreNames.taskKey(pool, taskId));
        if (task == null) {
            return false;
        }
        Attempt current = attempt(task, number);
        if (current != null) {
            Worker worker = workers.get(StoreNames.workerKey(pool, current.workerId()));
            if (worker != null) {
                worker.running().remove(Journal.attemptKey(taskId, number));
            }
            // A preemption is journaled as a revocation, then as the attempt's end PREEMPTED: the latter says which.
            AttemptOutcome kept = current.outcome() == null || outcome == AttemptOutcome.PREEMPTED ? outcome
                    : current.outcome();
            Attempt finished = new Attempt(current.attempt(), current.workerId(), current.generation(),
                    current.group(), current.assignedAt(), current.startedAt(),
                    current.finishedAt() != null ? current.finishedAt() : at, kept);
            task = withAttempt(task, task.state(), finished);
        }
        TaskState next = state != null ? state : task.state();
        tasks.put(StoreNames.taskKey(pool, taskId), new Task(task.taskId(), task.pool(), task.labels(), next, task.submittedAt(),
                task.attempts(), task.waitingReason(), task.readyAt()));
        return true;
    }

    private static Task withAttempt(Task task, TaskState state, Attempt attempt) {
        List<Attempt> attempts = new ArrayList<>(task.attempts());
        attempts.removeIf(a -> a.attempt() == attempt.attempt());
        attempts.add(attempt);
        attempts.sort(java.util.Comparator.comparingInt(Attempt::attempt));
        // A blocked task assigned at once was released by its parents then.
        return new Task(task.taskId(), task.pool(), task.labels(), state, task.submittedAt(), List.copyOf(attempts),
                state == TaskState.WAITING ? task.waitingReason() : null,
                task.state() == TaskState.BLOCKED ? attempt.assignedAt() : task.readyAt());
    }

    private static Attempt attempt(Task task, int number) {
        return task.attempts().stream().filter(a -> a.attempt() == number).findFirst().orElse(null);
    }

    private boolean updateTask(String pool, String taskId, java.util.function.UnaryOperator<Task> change) {
        Task task = tasks.get(StoreNames.taskKey(pool, taskId));
        if (task != null) {
            tasks.put(StoreNames.taskKey(pool, taskId), change.apply(task));
        }
        return task != null;
    }

    /** A worker's new state, and its new generation unless {@code generation} is null. */
    private boolean updateWorker(String pool, String workerId, WorkerState state, Long generation) {
        Worker w = workers.get(StoreNames.workerKey(pool, workerId));
        if (w != null) {
            workers.put(StoreNames.workerKey(pool, workerId), new Worker(w.workerId(), w.pool(), w.labels(), w.slots(),
                    generation == null ? w.generation() : generation, state, w.running()));
        }
        return w != null;
    }

    private Worker worker(String pool, String workerId) {
        return workers.computeIfAbsent(StoreNames.workerKey(pool, workerId), k -> new Worker(workerId, pool, Map.of(), 0, 0,
                WorkerState.ACTIVE, new LinkedHashSet<>()));
    }
}
