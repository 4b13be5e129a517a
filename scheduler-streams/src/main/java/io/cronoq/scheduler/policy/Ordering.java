package io.cronoq.scheduler.policy;

import io.cronoq.events.TaskRecord;
import java.util.Comparator;

/**
 * The orders placement follows, in one place: which waiting task goes first, which group a task
 * prefers, which profile inside the group, and which worker of a profile receives the attempt. Each is total, so the same
 * inputs always give the same decisions.
 */
final class Ordering {

    private Ordering() {}

    /**
     * A waiting task's place in line; lower goes first, within its class and across the classes a
     * freed slot can serve. Today the pool-wide submission sequence, so the line is submission
     * order and a retried task keeps its original place. Priorities will fold the priority class
     * into the high bits (higher class, lower bits), leaving the sequence as the tie-break.
     */
    static long order(TaskRecord task) {
        return task.getSequence();
    }

    /** A group as {@link #GROUPS} ranks it for one task: its labels and the free slots it has that the task could use. */
    record GroupRank(LabelSet labels, int free) {}

    /**
     * Group preference of a task among the groups that can serve it and have a free slot: fewest
     * labels first, so workers with rare labels stay available for the tasks that need them; then
     * the most free slots the task could use; then the canonical label key, only to be deterministic.
     * Preferences rank before it (see {@link WaitClass#bestFreeProfile}).
     */
    static final Comparator<GroupRank> GROUPS = (a, b) -> {
        int c = Integer.compare(a.labels().size(), b.labels().size());
        if (c != 0) {
            return c;
        }
        c = Integer.compare(b.free(), a.free());
        return c != 0 ? c : a.labels().key().compareTo(b.labels().key());
    };

    /**
     * Profile preference inside a group, between profiles with a free slot: fewest GPUs first (the
     * group rule applied to resources: a GPU stays free for a task that needs one), then their
     * preferred workers in {@link #WORKERS} order.
     */
    static final Comparator<Profile> PROFILES = (a, b) -> {
        int c = Integer.compare(a.resources().gpus(), b.resources().gpus());
        return c != 0 ? c : compareWorkers(a.pick(), b.pick());
    };

    /**
     * Worker preference inside a profile (and between the preferred workers of a group's profiles): fewest busy slots (least loaded); ties go to the worker
     * served longest ago ({@code lastAssignedSequence}, a pool sequence kept in the worker's record,
     * so the round-robin survives restarts); then the worker id.
     */
    static final Comparator<Worker> WORKERS = Ordering::compareWorkers;

    private static int compareWorkers(Worker a, Worker b) {
        int c = Integer.compare(a.busy(), b.busy());
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.lastAssignedSequence(), b.lastAssignedSequence());
        return c != 0 ? c : a.id().compareTo(b.id());
    }
}
