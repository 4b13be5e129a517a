package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.PoolRecord;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.policy.RecordedPlaces;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.match.ResourceProfile;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.schemas.rules.GangRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * What a forecast starts from: one pool's state read once from its store, bounded — the counters,
 * sharing and limits, every worker, the tasks they run, and of the waiting tasks the first
 * {@code perLine} of each line, the first timers and the waiting gangs. A line copied short is
 * remembered, so a forecast stops where the copy would misinform it. The copy is frozen: each future
 * of a forecast works in a {@link #fresh} store of its own over it. It keeps the task records as the
 * store gave them, unchanged: the store must not change them while the forecast runs (a read-only
 * store decodes records of its own; a simulation forecasts between two of its events).
 */
final class PoolCopy {

    /**
     * What the workers of the pool offer a requirement class.
     *
     * @param groups   the label keys of the groups whose labels include the class's (any state)
     * @param runnable whether some ACTIVE worker carries its labels and publishes enough resources
     */
    record Usable(java.util.SortedSet<String> groups, boolean runnable) {}

    final String pool;
    private final PoolRecord counters;
    private final SharingRecord sharing;
    private final LimitsRecord limits;
    final List<WorkerRecord> workers = new ArrayList<>();
    /** Every copied task by id: the waiting ones and the running ones. */
    final Map<String, TaskRecord> tasks = new LinkedHashMap<>();
    /** The copied part of each line, in place order. */
    private final Map<String, List<WaitingQueue.Entry>> lines = new HashMap<>();
    private final List<TimerQueue.Timer> timers;
    /** Lines that hold more than was copied. */
    final Set<String> truncated = new HashSet<>();
    /** Of each line that holds more than was copied, the rank of the last task copied. */
    private final Map<String, Long> lastCopiedRank = new HashMap<>();
    /** The ids of the waiting tasks copied: in lines, on timers, in waiting gangs. */
    final Set<String> waiting = new HashSet<>();
    /** The tasks the workers run (their current attempt holds a slot). */
    final List<String> running = new ArrayList<>();
    /**
     * Of the waiting tasks, those no ACTIVE worker can run (its labels or its published resources fall
     * short): nothing in this fleet places them.
     */
    final Set<String> unplaceable = new HashSet<>();
    private final Map<String, Usable> usable = new HashMap<>();

    private PoolCopy(String pool, PoolStore state, int perLine) {
        this.pool = pool;
        this.counters = copy(state.pool());
        this.sharing = copy(state.sharing());
        this.limits = copy(state.limits());
        for (WorkerRecord w : state.workers()) {
            workers.add(copy(w));
            for (AttemptRef ref : w.getRunning()) {
                TaskRecord task = state.task(ref.getTaskId());
                if (task != null && !task.getAttempts().isEmpty()) {
                    tasks.put(ref.getTaskId(), task);
                    running.add(ref.getTaskId());
                }
            }
        }
        for (Map.Entry<String, Long> line : state.waiting().counts().entrySet()) {
            List<WaitingQueue.Entry> first = state.waiting().first(line.getKey(), perLine);
            if (line.getValue() > first.size()) {
                truncated.add(line.getKey());
                if (!first.isEmpty()) {
                    lastCopiedRank.put(line.getKey(), first.get(first.size() - 1).place().rank());
                }
            }
            List<WaitingQueue.Entry> kept = new ArrayList<>(first.size());
            for (WaitingQueue.Entry e : first) {
                if (keepWaiting(state, e.taskId())) {
                    kept.add(e);
                }
            }
            if (!kept.isEmpty()) {
                lines.put(line.getKey(), List.copyOf(kept));
            }
        }
        List<TimerQueue.Timer> kept = new ArrayList<>();
        for (TimerQueue.Timer t : state.timers().first(perLine)) {
            if (tasks.containsKey(t.taskId()) || keepWaiting(state, t.taskId())) {
                kept.add(t);
            }
        }
        this.timers = kept;
        for (String gangId : counters == null ? List.<String>of() : counters.getWaitingGangs()) {
            TaskRecord first = state.task(GangRules.memberId(gangId, 0));
            if (first == null || first.getTask().getGang() == null) {
                continue;
            }
            for (int rank = 0; rank < first.getTask().getGang().getSize(); rank++) {
                keepWaiting(state, GangRules.memberId(gangId, rank));
            }
        }
        for (String taskId : waiting) {
            if (!usable(tasks.get(taskId).getTask()).runnable()) {
                unplaceable.add(taskId);
            }
        }
    }

    /** Copies this pool's state, at most {@code perLine} waiting tasks of each line. */
    static PoolCopy of(String pool, PoolStore state, int perLine) {
        return new PoolCopy(pool, state, perLine);
    }

    /**
     * Whether a task joining its line with {@code rank} would wait behind the part of the line that was not
     * copied: a future stops before the copied part runs dry, so it would never place that task.
     */
    boolean behindTheCopy(TaskSubmitted task, long rank) {
        Long last = lastCopiedRank.get(RecordedPlaces.lineKey(task));
        return last != null && rank >= last;
    }

    /** What the workers offer the task's requirement class (looked at once per class). */
    Usable usable(TaskSubmitted task) {
        return usable.computeIfAbsent(Requirement.keyOf(task), k -> {
            Requirement required = Requirement.of(task);
            java.util.SortedSet<String> groups = new java.util.TreeSet<>();
            boolean runnable = false;
            for (WorkerRecord w : workers) {
                LabelSet labels = LabelSet.of(w.getLabels());
                if (labels.includes(required.labelSet())) {
                    groups.add(labels.key());
                    runnable |= w.getState() == WorkerState.ACTIVE
                            && ResourceProfile.of(w.getResources()).satisfies(required.resources());
                }
            }
            return new Usable(groups, runnable);
        });
    }

    /** Copies a waiting task's record; false when it is not there or not waiting (the store moved on). */
    private boolean keepWaiting(PoolStore state, String taskId) {
        if (tasks.containsKey(taskId)) {
            return true;
        }
        TaskRecord task = state.task(taskId);
        if (task == null || task.getState() != TaskState.WAITING) {
            return false;
        }
        tasks.put(taskId, task);
        waiting.add(taskId);
        return true;
    }

    /** A store of its own over this copy, for one future: it copies a task only when the future reads it. */
    FutureStore fresh() {
        FutureStore store = new FutureStore(tasks, lines);
        if (counters != null) {
            store.putPool(copy(counters));
        }
        if (sharing != null) {
            store.putSharing(copy(sharing));
        }
        if (limits != null) {
            store.putLimits(copy(limits));
        }
        workers.forEach(w -> store.putWorker(copy(w)));
        timers.forEach(store.timers()::add);
        return store;
    }

    private static <T extends SpecificRecord> T copy(T record) {
        return record == null ? null : SpecificData.get().deepCopy(record.getSchema(), record);
    }
}
