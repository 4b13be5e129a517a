package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/**
 * How each recorded attempt of one pool ran, measured on the pool's {@link JournalClock}: when it
 * was assigned (and from when its worker held it for its fixed start, if it had one), when its
 * worker reported it started and how it ended (the {@code AttemptSucceeded} or
 * {@code AttemptFailed} report itself), or when the scheduler ended it (lost with its worker,
 * revoked). The simulation replays these reports for the attempts it places.
 */
final class RecordedRuns {

    /**
     * One recorded attempt. Times are pool-clock ms; {@code holdsFrom} is when its worker could
     * start it (its assignment, or its fixed start when that was later), the time the offsets are
     * measured from; {@code *Seq} are the report's index in the pool's journal, the tie-break that
     * keeps simultaneous events in recorded order.
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

    /** Measures the attempts of one pool's journal; {@code times} are its {@link JournalClock} times. */
    static RecordedRuns of(List<JournalEntry> entries, long[] times) {
        Map<String, Builder> builders = new HashMap<>();
        List<Builder> order = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Object event = entries.get(i).getEvent();
            long t = times[i];
            if (event instanceof AttemptAssigned a) {
                Builder b = new Builder(a.getTaskId(), a.getAttempt(), t, Simulation.holdsFrom(a, t));
                builders.put(key(a.getTaskId(), a.getAttempt()), b);
                order.add(b);
            } else if (event instanceof AttemptStarted s) {
                Builder b = builders.get(key(s.getTaskId(), s.getAttempt()));
                if (b != null) {
                    b.started = s;
                    b.startedAt = t;
                    b.startedSeq = i;
                }
            } else if (event instanceof AttemptSucceeded s) {
                report(builders.get(key(s.getTaskId(), s.getAttempt())), s, t, i);
            } else if (event instanceof AttemptFailed f) {
                report(builders.get(key(f.getTaskId(), f.getAttempt())), f, t, i);
            } else if (event instanceof TaskFinished f && f.getOutcome() == AttemptOutcome.LOST) {
                end(builders.get(key(f.getTaskId(), f.getAttempt())), t);
            } else if (event instanceof AttemptRevoked r) {
                end(builders.get(key(r.getTaskId(), r.getAttempt())), t);
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

    static String key(String taskId, int attempt) {
        return taskId + "#" + attempt;
    }

    private static void report(Builder b, SpecificRecord report, long t, int seq) {
        if (b != null && b.report == null) {
            b.report = report;
            b.reportedAt = t;
            b.reportedSeq = seq;
        }
    }

    private static void end(Builder b, long t) {
        if (b != null && b.report == null && b.endedAt == Run.NEVER) {
            b.endedAt = t;
        }
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

        Run build() {
            return new Run(taskId, attempt, assignedAt, holdsFrom, started, startedAt, startedSeq, report, reportedAt,
                    reportedSeq, endedAt);
        }
    }
}
