package io.cronoq.scheduler.policy.time;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * When each running attempt's lease ends: an attempt of a task with a timeout may run that long
 * from its start (from its assignment, or its fixed start, until the worker says it started). In
 * memory: there are at most as many as busy slots, and the scheduler rebuilds them from the
 * running attempts when it loads.
 */
public final class Leases {

    /** One lease: attempt {@code attempt} of {@code taskId} must be over by {@code endsAt} (epoch ms). */
    public record Lease(long endsAt, String taskId, int attempt) {}

    private final TreeSet<Lease> byEnd = new TreeSet<>(Comparator.comparingLong(Lease::endsAt)
            .thenComparing(Lease::taskId).thenComparingInt(Lease::attempt));
    private final Map<String, Lease> byTask = new HashMap<>();

    /**
     * Sets (or moves) the lease of the task's current attempt, when the task has a timeout: it
     * runs from the attempt's start, or until then from its assignment (or its fixed start, if later).
     */
    public void track(TaskRecord task) {
        Long timeout = task.getTask().getTimeoutMs();
        if (timeout == null) {
            return;
        }
        AttemptRecord a = task.getAttempts().get(task.getAttempts().size() - 1);
        Instant from = a.getStartedAt();
        if (from == null) {
            Instant startAt = task.getTask().getStartAt();
            from = startAt != null && startAt.isAfter(a.getAssignedAt()) ? startAt : a.getAssignedAt();
        }
        set(task.getTask().getTaskId(), a.getAttempt(), from.toEpochMilli() + timeout);
    }

    /** Sets (or moves) the lease of the task's current attempt. */
    public void set(String taskId, int attempt, long endsAt) {
        end(taskId);
        Lease lease = new Lease(endsAt, taskId, attempt);
        byEnd.add(lease);
        byTask.put(taskId, lease);
    }

    /** The attempt of this task ended: its lease is gone. */
    public void end(String taskId) {
        Lease lease = byTask.remove(taskId);
        if (lease != null) {
            byEnd.remove(lease);
        }
    }

    /** The leases that ended at or before {@code nowMillis}, earliest first (still held: the caller ends them). */
    public List<Lease> expired(long nowMillis) {
        List<Lease> result = new ArrayList<>();
        for (Lease lease : byEnd) {
            if (lease.endsAt() > nowMillis) {
                break;
            }
            result.add(lease);
        }
        return result;
    }

    /** The lease that ends first, or {@code null}. */
    public Lease first() {
        return byEnd.isEmpty() ? null : byEnd.first();
    }

    public int size() {
        return byTask.size();
    }
}
