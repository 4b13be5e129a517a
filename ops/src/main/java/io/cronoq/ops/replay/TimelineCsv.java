package io.cronoq.ops.replay;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.StringJoiner;

/**
 * Writes a timeline as CSV (RFC 4180): a header, then one row per attempt; a task with no attempt
 * gets one row whose attempt columns are empty. Times are ISO-8601 UTC, durations whole ms, label
 * sets {@code a=b,c=d}.
 */
final class TimelineCsv {

    static final List<String> HEADER = List.of("pool", "task_id", "task_labels", "state", "submitted_at", "attempt",
            "worker_id", "group", "ready_at", "assigned_at", "started_at", "finished_at", "wait_ms", "run_ms", "outcome",
            "waiting_reason");

    private TimelineCsv() {}

    static void write(List<Timeline.Task> tasks, PrintWriter out) {
        row(out, HEADER.toArray());
        for (Timeline.Task t : tasks) {
            if (t.attempts().isEmpty()) {
                row(out, t.pool(), t.taskId(), Labels.format(t.labels()), t.state(), t.submittedAt(), null, null, null,
                        t.submittedAt(), null, null, null, null, null, null, t.waitingReason());
                continue;
            }
            for (Timeline.Attempt a : t.attempts()) {
                row(out, t.pool(), t.taskId(), Labels.format(t.labels()), t.state(), t.submittedAt(), a.attempt(),
                        a.workerId(), Labels.format(a.group()), a.readyAt(), a.assignedAt(), a.startedAt(),
                        a.finishedAt(), a.waitMs(), a.runMs(), a.outcome(), t.waitingReason());
            }
        }
        out.flush();
    }

    private static void row(PrintWriter out, Object... cells) {
        StringJoiner line = new StringJoiner(",");
        for (Object cell : cells) {
            line.add(escape(cell));
        }
        out.print(line);
        out.print("\r\n");
    }

    static String escape(Object cell) {
        if (cell == null) {
            return "";
        }
        String s = cell instanceof Instant i ? i.toString() : cell.toString();
        if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }
}
