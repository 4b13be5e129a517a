package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * How each recorded attempt of one pool ran, measured on the scheduler's clock
 * ({@link JournalClock#heard}, the simulation's): when it was assigned (and from when its worker
 * held it for its fixed start, if it had one), when its worker reported it started and how it ended
 * (the {@code AttemptSucceeded} or {@code AttemptFailed} report itself), or when the scheduler
 * ended it (lost with its worker, revoked). The simulation replays these reports for the attempts
 * it places.
 */
final class RecordedRuns {

    /**
     * One recorded attempt. Times are ms on the scheduler's clock; {@code holdsFrom} is when its
     * worker could start it (its assignment, or its fixed start when that was later), the time the
     * offsets are measured from; {@code *Seq} are the report's index in the pool's journal, the
     * tie-break that keeps simultaneous events in recorded order.
     */
    record Run(String taskId, int attempt, long assignedAt, long holdsFrom,
               AttemptStarted started, long startedAt, int startedSeq,
               SpecificRecord report, long reportedAt, int reportedSeq,
               long endedAt) {

        static final long NEVER = Long.MIN_VALUE;

        boolean reported() {
            return report != null;
        }

        boolean interrupted() {
            return report == null && endedAt != NEVER;
        }

        /** Could start to started, ms; 0 when the start was never reported. */
        long startOffset() {
            return started == null ? 0 : startedAt - holdsFrom;
        }

        /** Could start to the report, ms. */
        long reportOffset() {
            return reportedAt - holdsFrom;
        }

        /** The run time the report measures: started (or could start) to the report, ms. */
        long runMs() {
            return reportedAt - (started == null ? holdsFrom : startedAt);
        }

        /** Could start to when the scheduler ended it, ms (for an interrupted run). */
        long lifetime() {
            return endedAt - holdsFrom;
        }
    }

    private final Map<String, Run> runs = new HashMap<>();
    private final Map<String, List<Run>> byTask = new HashMap<>();

    private RecordedRuns() {}

    /** Measures the attempts of one pool's journal; {@code times} are its {@link JournalClock#heard} times. */
    static RecordedRuns of(List<JournalEntry> entries, long[] times) {
        Map<String, Builder> builders = new HashMap<>();
        List<Builder> order = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Object event = entries.get(i).getEvent();
            long t = times[i];
            Journal.Attempt attempt = Journal.attemptOf(event);
            Builder known = attempt == null ? null : builders.get(attempt.key());
            // The run the entry is part of, after it: a new one for an assignment.
            Builder run = switch (JournalKind.of(event)) {
                case ATTEMPT_ASSIGNED -> new Builder(attempt.taskId(), attempt.attempt(), t,
                        Simulation.holdsFrom((AttemptAssigned) event, t));
                case ATTEMPT_STARTED -> known == null ? null : known.started((AttemptStarted) event, t, i);
                case ATTEMPT_SUCCEEDED, ATTEMPT_FAILED -> known == null ? null
                        : known.reported((SpecificRecord) event, t, i);
                // The scheduler ended it instead of its worker: lost with the worker, or revoked.
                case TASK_FINISHED -> known == null || ((TaskFinished) event).getOutcome() != AttemptOutcome.LOST
                        ? known : known.ended(t);
                case ATTEMPT_REVOKED -> known == null ? null : known.ended(t);
                case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT,
                        TASK_WAITING, TASK_CANCELLED, DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_ACCEPTED,
                        WORKER_REMOVED, WORKER_FENCED, REGISTRATION_REJECTED, TASK_FORGOTTEN, SHARING_POLICY_SET, LIMIT_SET,
                        GANG_SUBMITTED, PARENT_WATCHED, PARENT_ENDED, TASK_BLOCKED -> known;
            };
            if (run != null && run != known) {
                builders.put(attempt.key(), run);
                order.add(run);
            }
        }
        RecordedRuns runs = new RecordedRuns();
        for (Builder b : order) {
            Run run = b.build();
            runs.runs.put(key(run.taskId(), run.attempt()), run);
            runs.byTask.computeIfAbsent(run.taskId(), k -> new ArrayList<>()).add(run);
        }
        return runs;
    }

    /** The recorded attempt with this number, or null. */
    Run get(String taskId, int attempt) {
        return runs.get(key(taskId, attempt));
    }

    /** The first attempt after {@code attempt} that its worker reported on, or null. */
    Run nextReported(String taskId, int attempt) {
        for (Run r : byTask.getOrDefault(taskId, List.of())) {
            if (r.attempt() > attempt && r.reported()) {
                return r;
            }
        }
        return null;
    }

    /** The task's last attempt that its worker reported on, or null. */
    Run lastReported(String taskId) {
        Run last = null;
        for (Run r : byTask.getOrDefault(taskId, List.of())) {
            if (r.reported()) {
                last = r;
            }
        }
        return last;
    }

    private static String key(String taskId, int attempt) {
        return Journal.attemptKey(taskId, attempt);
    }

    private static final class Builder {
        final String taskId;
        final int attempt;
        final long assignedAt;
        final long holdsFrom;
        AttemptStarted started;
        long startedAt;
        int startedSeq;
        SpecificRecord report;
        long reportedAt;
        int reportedSeq;
        long endedAt = Run.NEVER;

        Builder(String taskId, int attempt, long assignedAt, long holdsFrom) {
            this.taskId = taskId;
            this.attempt = attempt;
            this.assignedAt = assignedAt;
            this.holdsFrom = holdsFrom;
        }

        /** Its worker's start report (at journal index {@code seq}). */
        Builder started(AttemptStarted s, long t, int seq) {
            started = s;
            startedAt = t;
            startedSeq = seq;
            return this;
        }

        /** Its worker's report of how it ended, unless one came before. */
        Builder reported(SpecificRecord r, long t, int seq) {
            if (report == null) {
                report = r;
                reportedAt = t;
                reportedSeq = seq;
            }
            return this;
        }

        /** The scheduler ended it, unless its worker had reported or it had ended before. */
        Builder ended(long t) {
            if (report == null && endedAt == Run.NEVER) {
                endedAt = t;
            }
            return this;
        }

        Run build() {
            return new Run(taskId, attempt, assignedAt, holdsFrom, started, startedAt, startedSeq, report, reportedAt,
                    reportedSeq, endedAt);
        }
    }
}
