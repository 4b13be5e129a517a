package io.cronoq.agent;

import java.util.Objects;

/**
 * Names one attempt of one task, as the worker tracks it.
 *
 * @param taskId  the task
 * @param attempt the attempt number, from 1
 */
public record AttemptId(String taskId, int attempt) {

    public AttemptId {
        Objects.requireNonNull(taskId, "taskId");
    }

    @Override
    public String toString() {
        return taskId + "#" + attempt;
    }
}
