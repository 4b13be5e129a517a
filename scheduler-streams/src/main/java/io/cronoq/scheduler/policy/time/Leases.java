package io.cronoq.scheduler.policy.time;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.TaskRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * When each running attempt's lease ends: an attempt of a task with a timeout may run that long
 * from its start (from its assignment, or its fixed start, until the worker says it started). In
 * memory: there are at most as many as busy slots, and the scheduler rebuilds them from the
 * running attempts when it loads.
 *
 * <p>The leases by task are the truth; the order by end is a heap in which an ended or moved lease
 * stays until it comes up (then it is dropped) or until stale ones outnumber the live ones (then
 * the heap is rebuilt). Most leases end in the order they were set, and most attempts end before
 * their lease: so setting one costs a comparison or two and ending one a map removal, where an
 * ordered tree walked and rebalanced its whole depth for each.
 */
public final class Leases {

    /**
     * One lease: attempt {@code attempt} of {@code taskId} must be over by {@code endsAt} (epoch ms);
     * {@code sequence} is the task's order of submission in its pool.
     */
    public record Lease(long endsAt, long sequence, String taskId, int attempt) implements Comparable<Lease> {

        /**
         * The order leases come up in: by end, then the task's order of submission (kept in its record,
         * so a scheduler loaded again orders equal ends alike; and a later task's lease, set last, goes
         * to the end of the heap at once).
         */
        @Override
        public int compareTo(Lease b) {
            return endsAt != b.endsAt ? Long.compare(endsAt, b.endsAt)
                    : sequence != b.sequence ? Long.compare(sequence, b.sequence) : Integer.compare(attempt, b.attempt);
        }
    }
    /** Stale leases the heap may hold beyond twice the live ones before it is rebuilt. */
    private static final int SLACK = 1_024;

    private PriorityQueue<Lease> byEnd = new PriorityQueue<>();
    private final Map<String, Lease> byTask = new HashMap<>();
    /** How long a gang's member may take to start after its assignment (its whole gang's attempt ends then). */
    private final long gangStartTimeoutMs;

    /** Leases with no bound on a gang member's start. */
    public Leases() {
        this(Long.MAX_VALUE);
    }

    /** Leases where a gang's member must start within {@code gangStartTimeoutMs} of its assignment. */
    public Leases(long gangStartTimeoutMs) {
        this.gangStartTimeoutMs = gangStartTimeoutMs;
    }

    /**
     * Whether a gang member's attempt that is not started yet ends at its start bound rather than at
     * its timeout: what ending it at {@code endsAt} means.
     */
    public boolean startBound(TaskRecord task) {
        AttemptRecord a = task.getAttempts().get(task.getAttempts().size() - 1);
        if (task.getTask().getGang() == null || a.getStartedAt() != null || gangStartTimeoutMs == Long.MAX_VALUE) {
            return false;
        }
        Long timeout = task.getTask().getTimeoutMs();
        return timeout == null || gangStartTimeoutMs <= timeout;
    }

    /** How long a gang member may take to start. */
    public long gangStartTimeoutMs() {
        return gangStartTimeoutMs;
    }

    /**
     * Sets (or moves) the lease of the task's current attempt, when the task has a timeout: it
     * runs from the attempt's start, or until then from its assignment (or its fixed start, if later).
     * A gang's member that has not started yet must start within the gang start timeout of its
     * assignment, when that comes first ({@link #startBound}).
     */
    public void track(TaskRecord task) {
        Long timeout = task.getTask().getTimeoutMs();
        boolean startBound = startBound(task);
        if (timeout == null && !startBound) {
            if (task.getTask().getGang() != null) {
                end(task.getTask().getTaskId()); // a member that started has no start bound any more
            }
            return;
        }
        AttemptRecord a = task.getAttempts().get(task.getAttempts().size() - 1);
        Instant from = a.getStartedAt();
        if (from == null) {
            Instant startAt = task.getTask().getStartAt();
            from = startAt != null && startAt.isAfter(a.getAssignedAt()) ? startAt : a.getAssignedAt();
        }
        String taskId = task.getTask().getTaskId();
        long endsAt = startBound ? a.getAssignedAt().toEpochMilli() + gangStartTimeoutMs : from.toEpochMilli() + timeout;
        Lease held = byTask.get(taskId);
        if (held != null && held.endsAt() == endsAt && held.attempt() == a.getAttempt()) {
            return; // started at the time it was assigned: the lease stays where it is
        }
        Lease lease = new Lease(endsAt, task.getSequence(), taskId, a.getAttempt());
        byTask.put(taskId, lease); // a lease it had before is now stale in the heap
        byEnd.add(lease);
        if (byEnd.size() > 2 * byTask.size() + SLACK) {
            byEnd = new PriorityQueue<>(byTask.values()); // heapified in one pass
        }
    }

    /** When the lease of this task's current attempt ends (epoch ms), or {@link Long#MAX_VALUE} when it has none. */
    public long endsAt(String taskId) {
        Lease lease = byTask.get(taskId);
        return lease == null ? Long.MAX_VALUE : lease.endsAt();
    }

    /** The attempt of this task ended: its lease is gone. */
    public void end(String taskId) {
        byTask.remove(taskId);
    }

    /** The leases that ended at or before {@code nowMillis}, earliest first (still held: the caller ends them). */
    public List<Lease> expired(long nowMillis) {
        List<Lease> result = new ArrayList<>();
        for (Lease lease = first(); lease != null && lease.endsAt() <= nowMillis; lease = first()) {
            result.add(byEnd.poll());
        }
        byEnd.addAll(result); // still held until the caller ends them; then they are dropped as they come up
        return result;
    }

    /** The lease that ends first, or {@code null}. */
    public Lease first() {
        while (true) {
            Lease top = byEnd.peek();
            if (top == null || byTask.get(top.taskId()) == top) {
                return top;
            }
            byEnd.poll(); // ended or moved since it was set
        }
    }

    public int size() {
        return byTask.size();
    }
}
