package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.InputRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerFenced;
import io.cronoq.schemas.rules.Violation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether an input may change one pool's state, and the answer when it may not: an input that
 * breaks a rule or names another pool is rejected ({@code InputRejected}); a report from a worker
 * that does not hold what it speaks of (a stale generation, an attempt that is not current, an
 * unknown task) is also fenced ({@code WorkerFenced}, sent to the worker so it aborts its copy).
 * Reads the pool's workers and tasks; changes nothing.
 */
final class Admission {

    private final String pool;
    private final PoolStore store;
    private final Map<String, Worker> workers;

    Admission(String pool, PoolStore store, Map<String, Worker> workers) {
        this.pool = pool;
        this.store = store;
        this.workers = workers;
    }

    /** The task named by a report from a worker, if that worker's generation holds its current attempt. */
    TaskRecord current(String inputType, String taskId, int attempt, String workerId, long generation,
                               Instant at, List<Decision> out) {
        TaskRecord task = task(taskId);
        if (task == null) {
            out.add(rejected(inputType, RejectionCode.NOT_FOUND, "taskId", "no task " + taskId + " in pool " + pool,
                    taskId, workerId));
            out.add(fence(workerId, generation, taskId, attempt,
                    "task " + taskId + " is unknown in pool " + pool + "; abort attempt " + attempt, at));
            return null;
        }
        TaskState state = task.getState();
        AttemptRecord current = state == TaskState.ASSIGNED || state == TaskState.RUNNING ? PoolModel.currentAttempt(task) : null;
        if (current == null || current.getAttempt() != attempt) {
            String why = current == null
                    ? "task " + taskId + " is " + state + "; attempt " + attempt + " is not running"
                    : "attempt " + attempt + " of task " + taskId + " is not current (attempt " + current.getAttempt()
                            + " is)";
            out.add(rejected(inputType, RejectionCode.FAILED_PRECONDITION, "attempt", why, taskId, workerId));
            out.add(fence(workerId, generation, taskId, attempt, why + "; abort it", at));
            return null;
        }
        if (!current.getWorkerId().equals(workerId) || current.getGeneration() != generation) {
            String why = "attempt " + attempt + " of task " + taskId + " belongs to worker " + current.getWorkerId()
                    + " generation " + current.getGeneration() + ", not to worker " + workerId + " generation "
                    + generation;
            out.add(rejected(inputType, RejectionCode.FAILED_PRECONDITION,
                    current.getWorkerId().equals(workerId) ? "generation" : "workerId", why, taskId, workerId));
            out.add(fence(workerId, generation, taskId, attempt, why + "; abort it", at));
            return null;
        }
        return task;
    }

    /** The live worker a drain or leave names, checked against the generation it gave, if any. */
    Worker liveWorker(String inputType, String id, Long generation, Instant at, List<Decision> out) {
        Worker w = workers.get(id);
        if (w == null) {
            out.add(rejected(inputType, RejectionCode.NOT_FOUND, "workerId", "no worker " + id + " in pool " + pool,
                    null, id));
            return null;
        }
        if (!w.live()) {
            out.add(rejected(inputType, RejectionCode.FAILED_PRECONDITION, "workerId",
                    "worker " + id + " already " + w.state(), null, id));
            return null;
        }
        if (generation != null && generation != w.generation()) {
            String why = "generation " + generation + " of worker " + id + " is stale; the current generation is "
                    + w.generation();
            out.add(rejected(inputType, RejectionCode.FAILED_PRECONDITION, "generation", why, null, id));
            out.add(fence(id, generation, null, null, why, at));
            return null;
        }
        return w;
    }

    /** Why a worker speaking under {@code generation} is stale, or {@code null} when it is current. */
    String staleness(Worker w, String id, long generation) {
        if (w == null) {
            return "worker " + id + " is not registered in pool " + pool + "; generation " + generation
                    + " is not valid, register again";
        }
        if (!w.live()) {
            return "worker " + id + " " + w.state() + " at generation " + w.generation() + "; generation "
                    + generation + " is not valid, register again";
        }
        if (w.generation() != generation) {
            return "generation " + generation + " of worker " + id + " is stale; the current generation is "
                    + w.generation();
        }
        return null;
    }

    /**
     * Whether an input breaks a rule ({@code broken}) or names another pool; if so its
     * {@code InputRejected} is added to {@code out}.
     */
    boolean refused(String inputType, Optional<Violation> broken, String inputPool, String taskId, String workerId,
                    List<Decision> out) {
        Violation invalid = invalid(broken, inputPool);
        if (invalid != null) {
            out.add(rejected(inputType, RejectionCode.INVALID_ARGUMENT, invalid.field(), invalid.message(), taskId,
                    workerId));
            return true;
        }
        return false;
    }

    private Violation invalid(Optional<Violation> broken, String inputPool) {
        if (broken.isPresent()) {
            return broken.get();
        }
        if (!pool.equals(inputPool)) {
            return new Violation("pool", "pool '" + inputPool + "' is not this scheduler's pool '" + pool
                    + "'; an input must be keyed by and name the pool it is for");
        }
        return null;
    }

    /** The task with this id in this pool, or {@code null}. */
    TaskRecord task(String id) {
        TaskRecord task = store.task(id);
        return task != null && pool.equals(task.getTask().getPool()) ? task : null;
    }

    /** {@code WorkerFenced}, journaled and sent to the worker, naming its current generation if it has one. */
    Decision fence(String workerId, long staleGeneration, String taskId, Integer attempt, String reason, Instant at) {
        Worker w = workers.get(workerId);
        Long currentGeneration = w != null && w.live() ? w.generation() : null;
        return Decision.journalAndNotify(new WorkerFenced(workerId, pool, staleGeneration, currentGeneration, taskId,
                attempt, reason, at), workerId, null);
    }

    static Decision rejected(String inputType, RejectionCode code, String field, String reason, String taskId,
                             String workerId) {
        return Decision.journal(new InputRejected(inputType, code, field, reason, taskId, workerId), null);
    }
}
