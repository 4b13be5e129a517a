package io.cronoq.scheduler.query;

import io.cronoq.events.TaskRecord;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;

/**
 * A position in the newest-first order of tasks (submission time descending, then task id
 * descending), written as the opaque token {@code <epoch millis>:<task id>} that a page hands out.
 */
public record TaskCursor(long submittedAtMillis, String taskId) {

    /** Newest first: later submission first, ties by task id descending. */
    public static final Comparator<TaskRecord> NEWEST_FIRST = Comparator
            .comparingLong((TaskRecord t) -> t.getTask().getSubmittedAt().toEpochMilli()).reversed()
            .thenComparing((TaskRecord t) -> t.getTask().getTaskId(), Comparator.reverseOrder());

    /** Checks that the id is there. */
    public TaskCursor {
        Objects.requireNonNull(taskId, "taskId");
    }

    /** The cursor at a task. */
    public static TaskCursor at(TaskRecord task) {
        return new TaskCursor(task.getTask().getSubmittedAt().toEpochMilli(), task.getTask().getTaskId());
    }

    /** The cursor at a task given by its submission time and id. */
    public static TaskCursor at(Instant submittedAt, String taskId) {
        return new TaskCursor(submittedAt.toEpochMilli(), taskId);
    }

    /** Reads a token; throws {@link IllegalArgumentException} when it is not one. */
    public static TaskCursor parse(String token) {
        int colon = token == null ? -1 : token.indexOf(':');
        if (colon <= 0 || colon == token.length() - 1) {
            throw new IllegalArgumentException("'" + token + "' is not a page token; pass back the 'next' value of a page");
        }
        try {
            return new TaskCursor(Long.parseLong(token.substring(0, colon)), token.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + token + "' is not a page token; pass back the 'next' value of a page", e);
        }
    }

    /** Whether a task comes strictly after this position in newest-first order. */
    public boolean precedes(TaskRecord task) {
        long at = task.getTask().getSubmittedAt().toEpochMilli();
        return at < submittedAtMillis || (at == submittedAtMillis && task.getTask().getTaskId().compareTo(taskId) < 0);
    }

    /** The token of this position. */
    public String token() {
        return submittedAtMillis + ":" + taskId;
    }
}
