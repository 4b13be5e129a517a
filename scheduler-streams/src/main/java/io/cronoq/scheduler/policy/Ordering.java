package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Preferences;
import io.cronoq.scheduler.policy.store.Place;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskSubmitted;
import java.time.Instant;
import java.util.Comparator;

/**
 * The orders placement follows, in one place: which waiting task goes first, which group a task
 * prefers, which profile inside the group, and which worker of a profile receives the attempt. Each is total, so the same
 * inputs always give the same decisions.
 */
final class Ordering {

    private Ordering() {}

    /** The rank of a task that waits for a timer outside every line (not before, retry backoff). */
    static final long NOT_IN_LINE = Long.MAX_VALUE;
    /** Ranks of fixed starts whose reservation began: ahead of everything, earliest start first. */
    private static final long FIXED_START_TIER = Long.MIN_VALUE / 2;
    /** Ranks of tasks whose deadline is near: ahead of all others, earliest deadline first. */
    private static final long NEAR_DEADLINE_TIER = Long.MIN_VALUE / 4;

    /**
     * Whether a place is in the first two tiers of {@link #rank}: a fixed start whose reservation
     * began, or a near deadline. Such a head is served before any tenant's share is weighed.
     */
    static boolean urgent(Place place) {
        return place.rank() < URGENT_BELOW;
    }

    /** Every rank of the two urgent tiers is below this (their tier bases plus an epoch-millisecond time). */
    private static final long URGENT_BELOW = Long.MIN_VALUE / 8;

    /** A waiting task's place in line: its rank, then its pool-unique sequence. */
    static Place place(TaskRecord task) {
        return new Place(task.getRank(), task.getSequence());
    }

    /**
     * The rank of a task joining its line at {@code now}; lower goes first, within its class and
     * across the classes a freed slot can serve. Three tiers, in this order:
     * <ol>
     *   <li>a fixed start (its reservation began: see {@link #releaseAt}), by start time;</li>
     *   <li>a task whose deadline is at most {@link TimeRules#deadlineLeadMs} away (or past), by
     *       deadline: as a deadline nears the task moves ahead of every task without a near one;</li>
     *   <li>every other task, by submission time minus {@link TimeRules#priorityStepMs} per
     *       priority class above NORMAL (plus one step for LOW). So a higher class goes first among
     *       tasks submitted within that much of each other, and that is all it buys: a task that has
     *       waited longer than the step (two for two classes…) stays ahead of any higher-class task
     *       submitted after it. That is the aging rule: no task is starved forever by a stream of
     *       higher-class ones; it waits at most three steps longer than it would have.</li>
     * </ol>
     * The sequence breaks ties ({@link Place}). A retried task keeps its rank (the same submission),
     * unless its deadline has come near meanwhile.
     */
    static long rank(TaskSubmitted s, TimeRules rules, Instant now) {
        if (s.getStartAt() != null) {
            return FIXED_START_TIER + s.getStartAt().toEpochMilli();
        }
        Instant urgentFrom = urgentFrom(s, rules);
        if (urgentFrom != null && !now.isBefore(urgentFrom)) {
            return NEAR_DEADLINE_TIER + s.getDeadline().toEpochMilli();
        }
        return s.getSubmittedAt().toEpochMilli() - stepsAboveLow(s.getPriority()) * rules.priorityStepMs();
    }

    /** When the task's deadline makes it urgent, or {@code null} when it has no deadline. */
    static Instant urgentFrom(TaskSubmitted s, TimeRules rules) {
        return s.getDeadline() == null ? null : s.getDeadline().minusMillis(rules.deadlineLeadMs());
    }

    /**
     * When a new task may join its line: not before its {@code notBefore}, and a fixed start
     * {@link TimeRules#reservationLeadMs} before its start time, so the next matching slot is held
     * for it from then on. {@code null} when it may join at once.
     */
    static Instant releaseAt(TaskSubmitted s, TimeRules rules) {
        Instant release = s.getNotBefore();
        if (s.getStartAt() != null) {
            Instant reserve = s.getStartAt().minusMillis(rules.reservationLeadMs());
            release = release == null || reserve.isAfter(release) ? reserve : release;
        }
        return release;
    }

    private static int stepsAboveLow(Priority priority) {
        return switch (priority) {
            case LOW -> 0;
            case NORMAL -> 1;
            case HIGH -> 2;
            case CRITICAL -> 3;
        };
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
        int c = Integer.compare(a.resources.gpus(), b.resources.gpus());
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
