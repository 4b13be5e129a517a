package io.cronoq.ops.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a timeline as JSON Lines: one object per task with its attempts nested. Times are
 * ISO-8601 strings, durations whole ms ({@code waitMs}, {@code runMs}); absent values are null.
 */
final class TimelineJsonLines {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TimelineJsonLines() {}

    static void write(List<Timeline.Task> tasks, PrintWriter out) {
        for (Timeline.Task t : tasks) {
            ObjectNode task = JSON.createObjectNode();
            task.put("pool", t.pool());
            task.put("taskId", t.taskId());
            task.set("labels", labels(t.labels()));
            task.put("state", String.valueOf(t.state()));
            task.put("submittedAt", time(t.submittedAt()));
            ArrayNode attempts = task.putArray("attempts");
            for (Timeline.Attempt a : t.attempts()) {
                ObjectNode attempt = attempts.addObject();
                attempt.put("attempt", a.attempt());
                attempt.put("workerId", a.workerId());
                attempt.set("group", labels(a.group()));
                attempt.put("readyAt", time(a.readyAt()));
                attempt.put("assignedAt", time(a.assignedAt()));
                attempt.put("startedAt", time(a.startedAt()));
                attempt.put("finishedAt", time(a.finishedAt()));
                attempt.put("waitMs", a.waitMs());
                attempt.put("runMs", a.runMs());
                attempt.put("outcome", a.outcome() == null ? null : a.outcome().toString());
            }
            task.put("waitingReason", t.waitingReason());
            out.print(JsonText.of(JSON, task));
            out.print('\n');
        }
        out.flush();
    }

    static ObjectNode labels(Map<String, String> labels) {
        ObjectNode node = JSON.createObjectNode();
        new TreeMap<>(labels).forEach(node::put);
        return node;
    }

    static String time(Instant at) {
        return at == null ? null : at.toString();
    }
}
