package io.cronoq.gateway;

import io.cronoq.events.TaskState;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A gang's state from its members' states. A member whose record is gone has none ({@code null}) and is left out:
 * only a finished task is forgotten, at the end of its retention.
 */
final class GangStates {

    private static final Set<String> UNDER_WAY = Set.of(TaskState.ASSIGNED.name(), TaskState.RUNNING.name(),
            TaskState.SUCCEEDED.name());

    private GangStates() {}

    /**
     * {@code SUCCEEDED} when every member succeeded; else {@code FAILED} when one failed, {@code CANCELLED} when one
     * was cancelled (the scheduler fails and cancels a gang as a whole); else {@code RUNNING} when every member is
     * assigned, running or already succeeded; else {@code WAITING}.
     */
    static String of(List<String> members) {
        List<String> states = members.stream().filter(Objects::nonNull).toList();
        if (states.stream().allMatch(TaskState.SUCCEEDED.name()::equals)) {
            return TaskState.SUCCEEDED.name();
        }
        if (states.contains(TaskState.FAILED.name())) {
            return TaskState.FAILED.name();
        }
        if (states.contains(TaskState.CANCELLED.name())) {
            return TaskState.CANCELLED.name();
        }
        if (states.stream().allMatch(UNDER_WAY::contains)) {
            return TaskState.RUNNING.name();
        }
        return TaskState.WAITING.name();
    }

    /** Whether a gang in {@code state} waits. */
    static boolean waiting(String state) {
        return Objects.equals(state, TaskState.WAITING.name());
    }
}
