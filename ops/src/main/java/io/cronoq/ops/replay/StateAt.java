package io.cronoq.ops.replay;

import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.replay.JournalFold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The state of every pool at one instant, as folding the journal up to it tells: per pool its
 * capacity, busy slots and task counts (a pool whose policy came before any worker or task has
 * none); per group its workers, capacity, busy slots and the waiting tasks it could serve; per pool
 * its queue of waiting tasks in the order they will be served.
 */
record StateAt(Instant at, List<Pool> pools, List<GroupAt> groups, Map<String, List<Queued>> queues) {

    /** One pool: its ACTIVE workers, their slots and the attempts on them, and its tasks by state. */
    record Pool(String pool, int workers, int capacity, int busy, Map<TaskState, Integer> tasks) {
        int waiting() {
            return tasks.getOrDefault(TaskState.WAITING, 0);
        }
    }

    /**
     * One group: workers with exactly these labels. {@code workers}, {@code capacity} and
     * {@code busy} count ACTIVE workers; {@code drainingBusy} the attempts DRAINING ones still run;
     * {@code waiting} the waiting tasks the group could run.
     */
    record GroupAt(String pool, Map<String, String> labels, int workers, int capacity, int busy, int drainingBusy,
                 int waiting) {}

    /** A waiting task: since when (submission, or the end of its last attempt) and why. */
    record Queued(String taskId, Map<String, String> labels, int attempts, Instant since, long waitedMs,
                  String reason) {}

    /** The state of a fold that has applied every entry up to {@code at}. */
    static StateAt of(JournalFold fold, Instant at) {
        Map<String, Map<TaskState, Integer>> tasksByPool = new TreeMap<>();
        Map<String, List<Queued>> queues = new TreeMap<>();
        Map<String, List<JournalFold.Task>> waitingByPool = new TreeMap<>();
        for (JournalFold.Task t : fold.tasks().values()) {
            tasksByPool.computeIfAbsent(t.pool(), p -> new EnumMap<>(TaskState.class)).merge(t.state(), 1, Integer::sum);
            if (t.state() == TaskState.WAITING) {
                Instant since = t.attempts().isEmpty() ? t.submittedAt()
                        : t.attempts().get(t.attempts().size() - 1).finishedAt();
                long waited = since == null ? 0 : Math.max(0, Duration.between(since, at).toMillis());
                queues.computeIfAbsent(t.pool(), p -> new ArrayList<>()).add(new Queued(t.taskId(), t.labels(),
                        t.attempts().size(), since, waited, t.waitingReason()));
                waitingByPool.computeIfAbsent(t.pool(), p -> new ArrayList<>()).add(t);
            }
        }
        // Every pool the scheduler keeps, as its snapshot lists them: one whose policy came first too.
        TreeSet<String> poolNames = new TreeSet<>(fold.pools());
        poolNames.addAll(tasksByPool.keySet());
        // Counted as the scheduler's snapshots count them: capacity and busy of ACTIVE workers only,
        // what DRAINING workers still run apart.
        Map<String, Map<Map<String, String>, int[]>> sums = new TreeMap<>();
        for (JournalFold.Worker w : fold.workers()) {
            poolNames.add(w.pool());
            if (w.state() != WorkerState.ACTIVE && w.state() != WorkerState.DRAINING) {
                continue;
            }
            int[] g = sums.computeIfAbsent(w.pool(), p -> new TreeMap<>(Labels.ORDER))
                    .computeIfAbsent(new TreeMap<>(w.labels()), l -> new int[4]);
            if (w.state() == WorkerState.ACTIVE) {
                g[0]++;
                g[1] += w.slots();
                g[2] += w.running().size();
            } else {
                g[3] += w.running().size();
            }
        }
        List<GroupAt> groups = new ArrayList<>();
        List<Pool> pools = new ArrayList<>();
        for (String name : poolNames) {
            int workers = 0;
            int capacity = 0;
            int busy = 0;
            for (var g : sums.getOrDefault(name, Map.of()).entrySet()) {
                int waiting = 0;
                for (JournalFold.Task t : waitingByPool.getOrDefault(name, List.of())) {
                    if (Labels.serves(g.getKey(), t.labels())) {
                        waiting++;
                    }
                }
                int[] v = g.getValue();
                groups.add(new GroupAt(name, g.getKey(), v[0], v[1], v[2], v[3], waiting));
                workers += v[0];
                capacity += v[1];
                busy += v[2];
            }
            pools.add(new Pool(name, workers, capacity, busy, tasksByPool.getOrDefault(name, Map.of())));
        }
        return new StateAt(at, List.copyOf(pools), List.copyOf(groups), queues);
    }
}
