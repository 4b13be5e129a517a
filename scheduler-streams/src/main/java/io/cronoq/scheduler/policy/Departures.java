package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.time.RetryRule;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A worker's generation going away, written once for its three causes (it registered again, it
 * left, it was evicted): every attempt it held is lost ({@code TaskFinished} LOST, then WAITING to
 * run again as a new attempt, at once and at its original place in line, since losing its worker
 * is not the task's failure; or FAILED when no attempts are left), its capacity leaves its group,
 * and the classes it served are told again why they wait.
 */
record Departures(PoolModel m, Placement placement) {

    /** What a departed generation leaves behind: the tasks to re-queue, the classes whose reason may change. */
    record Departure(List<TaskRecord> lost, LinkedHashSet<Need> touched) {
        static Departure none() {
            return new Departure(List.of(), new LinkedHashSet<>());
        }
    }

    /**
     * The worker's current generation is gone for good: its attempts are lost, it leaves its
     * group, and it is stored in {@code state} under {@code generation}; then the lost tasks are
     * re-queued (and placed where a slot is free) and the classes it served are told what changed.
     */
    void remove(Worker w, WorkerState state, long generation, String cause, Instant at, List<Decision> out) {
        Departure gone = leaveGroup(w, cause, at, out);
        w.state(state);
        w.record.setGeneration(generation);
        m.store.putWorker(w.record);
        placement.requeue(gone.lost(), at, out, gone.touched());
    }

    /**
     * The first half of {@link #remove}, for a worker whose new generation replaces the record
     * (a re-registration): its attempts are lost, it leaves its group and is no longer leaving
     * (a grace ends with its generation); the caller stores the new generation and re-queues what
     * is returned.
     */
    Departure leaveGroup(Worker w, String cause, Instant at, List<Decision> out) {
        placement.reasons.ensureReasons();
        List<TaskRecord> gangMembers = new ArrayList<>();
        List<TaskRecord> lost = loseAttempts(w, at, out, cause, gangMembers);
        LinkedHashSet<Need> touched = new LinkedHashSet<>(w.profile().needs);
        m.groups.leave(w);
        w.clearRunning();
        m.leaving.remove(w.id());
        if (!gangMembers.isEmpty()) {
            placement.gangs.lost(gangMembers, cause, at, out); // each gang's attempt ends as one
        }
        return new Departure(lost, touched);
    }

    /**
     * Ends every attempt a worker holds as LOST; a task with attempts left is set back to WAITING
     * and returned (the caller re-queues them once the worker is out of its group), the others FAILED;
     * a gang's member is put in {@code gangMembers} instead, for its gang to decide.
     */
    private List<TaskRecord> loseAttempts(Worker w, Instant at, List<Decision> out, String cause,
                                          List<TaskRecord> gangMembers) {
        List<TaskRecord> lost = new ArrayList<>(w.busy());
        for (AttemptRef ref : w.running()) {
            TaskRecord task = m.store.task(ref.getTaskId());
            AttemptRecord attempt = PoolModel.currentAttempt(task);
            PoolModel.end(attempt, AttemptOutcome.LOST, null, at);
            m.leases().end(ref.getTaskId());
            if (task.getTask().getGang() != null) {
                gangMembers.add(task); // its gang decides, once the worker has left its group
                continue;
            }
            int spent = RetryRule.spent(task);
            RetryRule retry = RetryRule.of(task);
            if (retry.retries(spent, true)) {
                task.setState(TaskState.WAITING);
                lost.add(task);
                out.add(Decision.journal(new TaskFinished(ref.getTaskId(), ref.getAttempt(), w.id(),
                        AttemptOutcome.LOST, TaskState.WAITING, null), cause));
            } else {
                m.finish(task, TaskState.FAILED, at);
                out.add(Decision.journal(new TaskFinished(ref.getTaskId(), ref.getAttempt(), w.id(),
                        AttemptOutcome.LOST, TaskState.FAILED, cause), cause + "; " + retry.exhausted(spent)));
            }
        }
        return lost;
    }
}
