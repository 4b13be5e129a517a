package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.time.TimeCauses;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;

/**
 * What a worker reports about an attempt it holds: it started (ASSIGNED becomes RUNNING), it
 * succeeded (the task is SUCCEEDED), it failed (retried or FAILED). Each report is first checked
 * the same way: it must be well-formed, name this pool, and come from the worker generation that
 * holds the task's current attempt; anything else is rejected and the worker fenced for it. A
 * leaving worker still holds its attempts ({@link Leaves}): its reports count, and the one that
 * ends its last attempt removes it.
 */
record AttemptReports(PoolModel m, Placement placement, PoolTime time, Leaves leaves) {

    /** The fields every report carries, and the rule check of the report it came from. */
    private record Report(String type, String pool, String taskId, int attempt, String workerId, long generation,
                          Instant at, Optional<Violation> broken) {}

    /** The worker began the attempt: ASSIGNED becomes RUNNING, and its lease starts. */
    List<Decision> started(AttemptStarted in) {
        List<Decision> out = new ArrayList<>(2);
        TaskRecord task = open(new Report("AttemptStarted", in.getPool(), in.getTaskId(), in.getAttempt(),
                in.getWorkerId(), in.getGeneration(), in.getAt(), Rules.check(in)), out);
        if (task == null) {
            return out;
        }
        if (task.getState() == TaskState.RUNNING) {
            out.add(Admission.rejected("AttemptStarted", RejectionCode.FAILED_PRECONDITION, "attempt",
                    "attempt " + in.getAttempt() + " of task " + in.getTaskId() + " already started",
                    in.getTaskId(), in.getWorkerId()));
            return out;
        }
        String verdict = TimeCauses.startVerdict(task.getTask(), in.getAt(), "started", m.rules.startToleranceMs());
        out.add(Decision.journal(in, verdict));
        PoolModel.currentAttempt(task).setStartedAt(in.getAt());
        task.setState(TaskState.RUNNING);
        task.setUpdatedAt(in.getAt());
        m.store.putTask(task);
        m.leases().track(task);
        return out;
    }

    /** The attempt succeeded: the task is SUCCEEDED and the slot goes to the next waiting task. */
    List<Decision> succeeded(AttemptSucceeded in) {
        List<Decision> out = new ArrayList<>(4);
        TaskRecord task = open(new Report("AttemptSucceeded", in.getPool(), in.getTaskId(), in.getAttempt(),
                in.getWorkerId(), in.getGeneration(), in.getAt(), Rules.check(in)), out);
        if (task == null) {
            return out;
        }
        Instant at = in.getAt();
        AttemptRecord attempt = ended(task, in, AttemptOutcome.SUCCEEDED, null, at, out);
        if (in.getResult() != null) {
            m.store.dependencies().putResult(in.getTaskId(), in.getResult()); // its children receive it
        }
        m.finish(task, TaskState.SUCCEEDED, at);
        placement.release(task, attempt, true);
        out.add(Decision.journal(new TaskFinished(in.getTaskId(), attempt.getAttempt(), attempt.getWorkerId(),
                AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null),
                TimeCauses.lateness(task.getTask(), at, "finished")));
        leaves.ended(attempt, at, out);
        placement.settle(at, out);
        return out;
    }

    /**
     * The attempt failed: the slot goes to the next waiting task; a retryable failure with attempts
     * left re-queues the task at its original place in line to run as the next attempt, else the
     * task is FAILED. Every attempt's error stays in the record, bounded as journaled and stored.
     */
    List<Decision> failed(AttemptFailed in) {
        List<Decision> out = new ArrayList<>(4);
        TaskRecord task = open(new Report("AttemptFailed", in.getPool(), in.getTaskId(), in.getAttempt(),
                in.getWorkerId(), in.getGeneration(), in.getAt(), Rules.check(in)), out);
        if (task == null) {
            return out;
        }
        in.setError(Rules.shortened(in.getError(), Rules.MAX_ERROR_LENGTH));
        Instant at = in.getAt();
        AttemptRecord attempt = ended(task, in, AttemptOutcome.FAILED, in.getError(), at, out);
        placement.release(task, attempt, true);
        time.retryOrFail(task, attempt, in.getError(), in.getRetryable(), at, out);
        leaves.ended(attempt, at, out);
        placement.settle(at, out);
        return out;
    }

    /** Journals the report and ends the task's current attempt with its outcome. */
    private static AttemptRecord ended(TaskRecord task, SpecificRecord report, AttemptOutcome outcome, String error,
                                       Instant at, List<Decision> out) {
        out.add(Decision.journal(report, null));
        AttemptRecord attempt = PoolModel.currentAttempt(task);
        PoolModel.end(attempt, outcome, error, at);
        return attempt;
    }

    /** The task a report speaks of, when the report may change it; else {@code null}, with the answer in {@code out}. */
    private TaskRecord open(Report r, List<Decision> out) {
        if (m.admission.refused(r.type(), r.broken(), r.pool(), r.taskId(), r.workerId(), out)) {
            return null;
        }
        return m.admission.current(r.type(), r.taskId(), r.attempt(), r.workerId(), r.generation(), r.at(), out);
    }
}
