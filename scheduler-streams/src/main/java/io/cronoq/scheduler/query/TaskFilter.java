package io.cronoq.scheduler.query;

import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;

/**
 * Which tasks a page lists: optionally one pool and one state, at most {@code limit} of them,
 * newest first, after a cursor.
 *
 * @param pool   only this pool, or {@code null} for every pool
 * @param state  only this state, or {@code null} for every state
 * @param limit  the most tasks to return, at least 1
 * @param before start after this position, or {@code null} for the newest
 * @param workflow only the tasks of this workflow (their ids start with it and ':'), or {@code null}
 */
public record TaskFilter(String pool, TaskState state, int limit, TaskCursor before, String workflow) {

    /** Tasks of any workflow or none. */
    public TaskFilter(String pool, TaskState state, int limit, TaskCursor before) {
        this(pool, state, limit, before, null);
    }

    /** Checks the limit. */
    public TaskFilter {
        if (limit < 1) {
            throw new IllegalArgumentException("limit is " + limit + "; it must be at least 1");
        }
    }

    /** Whether a task passes the pool, state, cursor and workflow conditions. */
    boolean accepts(TaskRecord task) {
        return (pool == null || pool.equals(task.getTask().getPool()))
                && (state == null || state == task.getState())
                && (before == null || before.precedes(task))
                && (workflow == null || workflow.equals(task.getTask().getWorkflow()));
    }
}
