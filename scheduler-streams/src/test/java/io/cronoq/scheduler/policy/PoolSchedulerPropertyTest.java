package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Preferences;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.TimerQueue;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import static io.cronoq.scheduler.policy.In.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerResources;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.PackageRequirement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Random interleavings of every input, checking after each step what must always hold: no worker
 * beyond its slots, no leaving worker that holds nothing, each live attempt current and on exactly one worker that satisfies its full
 * requirement (labels and resources), no task waiting while an ACTIVE worker that satisfies its
 * full requirement has a free slot, no attempt placed on a worker its task prefers less than one
 * left idle, each task in exactly one state with a reason while it waits, and a snapshot and a
 * per-class view that add up. The tasks an answer names are checked at every step, all tasks every
 * {@value #SWEEP} steps and at the end.
 */
// Its variants are independent runs: they go side by side.
@Execution(ExecutionMode.CONCURRENT)
class PoolSchedulerPropertyTest {

    private static final int STEPS = 3_000;
    private static final int SWEEP = 50;

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(longs = {1, 42, 2026})
    void invariantsHoldAfterEveryStep(long variant) {
        Check check = new Check(InMemoryPoolStore.copying());
        // A worker is evicted after 5 minutes of silence (300 steps): some are, most heartbeat in time.
        PoolScheduler scheduler = new PoolScheduler(POOL, check.store,
                new TimeRules(300_000, 30_000, 600_000, 300_000, 60_000, TimeRules.DEFAULT_RETENTION_MS));
        RandomWorkload workload = new RandomWorkload(variant);
        int assignments = 0;
        int constrained = 0;
        StringBuilder reasons = new StringBuilder();

        for (int step = 1; step <= STEPS; step++) {
            List<Decision> out = workload.step(scheduler);
            assignments += Out.all(out, AttemptAssigned.class).size();
            for (AttemptAssigned a : Out.all(out, AttemptAssigned.class)) {
                constrained += check.store.task(a.getTaskId()).getTask().getResources() != null ? 1 : 0;
            }
            Out.all(out, io.cronoq.events.TaskWaiting.class).forEach(w -> reasons.append(w.getReason()).append('\n'));
            String context = "variant " + variant + " step " + step + " after " + Out.types(out);
            Set<String> touched = new LinkedHashSet<>();
            for (Decision d : out) {
                require(d.event() != null && (d.journal() || d.worker() != null), "decision goes nowhere: %s", d);
                String taskId = taskIdOf(d.event());
                if (taskId != null) {
                    touched.add(taskId);
                }
            }
            check.step(scheduler, workload.workerIds(), step % SWEEP == 0 ? workload.taskIds() : touched, context);
            check.preferences(scheduler, workload.workerIds(), Out.all(out, AttemptAssigned.class), context);
        }
        check.step(scheduler, workload.workerIds(), workload.taskIds(), "variant " + variant + " at the end");

        // The walk did reach the interesting places.
        assertThat(assignments).isGreaterThan(STEPS / 4);
        assertThat(constrained).isGreaterThan(STEPS / 20);
        assertThat(reasons.toString()).contains("lack", "published no resources", "too little", "free GPU",
                "in line", "is draining");
        assertThat(check.leavingSeen).as("workers in their leave grace").isPositive();
        assertThat(check.seen).containsKeys(TaskState.WAITING, TaskState.ASSIGNED, TaskState.RUNNING,
                TaskState.SUCCEEDED, TaskState.FAILED, TaskState.CANCELLED);
    }

    /** The checks of one run; plain code rather than AssertJ chains, as it runs ~10^5 times. */
    private static final class Check {

        final InMemoryPoolStore store;
        final Map<TaskState, Integer> seen = new EnumMap<>(TaskState.class);
        /** Leaving workers met after the steps, counted once per step. */
        int leavingSeen;

        Check(InMemoryPoolStore store) {
            this.store = store;
        }

        void step(PoolScheduler scheduler, List<String> workerIds, Iterable<String> taskIds, String context) {
            // Workers: never beyond their slots; every attempt on one worker at most.
            Map<String, WorkerRecord> workers = new HashMap<>();
            Map<String, String> holder = new HashMap<>(); // "task#attempt" -> worker
            List<WorkerRecord> idleActive = new ArrayList<>();
            int capacity = 0;
            int busy = 0;
            int drainingBusy = 0;
            for (String id : workerIds) {
                WorkerRecord w = scheduler.worker(id);
                if (w == null) {
                    continue;
                }
                workers.put(id, w);
                int running = w.getRunning().size();
                require(running <= w.getSlots(), "worker %s runs %d attempts on %d slots; %s", id, running,
                        w.getSlots(), context);
                if (w.getState() == WorkerState.LEFT || w.getState() == WorkerState.EVICTED) {
                    require(running == 0, "departed worker %s still runs %s; %s", id, w.getRunning(), context);
                } else if (w.getState() == WorkerState.ACTIVE) {
                    require(w.getLeftAt() == null, "active worker %s left at %s; %s", id, w.getLeftAt(), context);
                    capacity += w.getSlots();
                    busy += running;
                    if (running < w.getSlots()) {
                        idleActive.add(w);
                    }
                } else {
                    // A leaving worker (DRAINING with a leave time) stays only while it holds something to report.
                    require(w.getLeftAt() == null || running > 0, "leaving worker %s holds nothing; %s", id, context);
                    leavingSeen += w.getLeftAt() != null ? 1 : 0;
                    drainingBusy += running;
                }
                for (AttemptRef ref : w.getRunning()) {
                    String previous = holder.put(ref.getTaskId() + "#" + ref.getAttempt(), id);
                    require(previous == null, "attempt %s#%d is on %s and %s; %s", ref.getTaskId(), ref.getAttempt(),
                            previous, id, context);
                }
            }

            // Every attempt a worker holds is the current attempt of a live task, under its generation.
            for (Map.Entry<String, String> h : holder.entrySet()) {
                String taskId = h.getKey().substring(0, h.getKey().lastIndexOf('#'));
                TaskRecord t = store.task(taskId);
                require(t != null && (t.getState() == TaskState.ASSIGNED || t.getState() == TaskState.RUNNING),
                        "%s holds %s of a task that is not running; %s", h.getValue(), h.getKey(), context);
                AttemptRecord current = t.getAttempts().get(t.getAttempts().size() - 1);
                WorkerRecord w = workers.get(h.getValue());
                require(h.getKey().equals(taskId + "#" + current.getAttempt())
                                && current.getWorkerId().equals(w.getWorkerId())
                                && current.getGeneration() == w.getGeneration(),
                        "%s holds %s but the current attempt is %s; %s", h.getValue(), h.getKey(), current, context);
            }

            // The line: each task once; none that an idle ACTIVE worker satisfying its requirement could run.
            Map<String, WaitingQueue.Entry> queued = new HashMap<>();
            Map<String, Long> perClass = new HashMap<>();
            for (WaitingQueue.Entry e : store.waiting().entries()) {
                require(queued.put(e.taskId(), e) == null, "%s is queued twice; %s", e.taskId(), context);
                perClass.merge(e.classKey(), 1L, Long::sum);
                TaskSubmitted waiting = store.task(e.taskId()).getTask();
                for (WorkerRecord idle : idleActive) {
                    require(!satisfies(idle, waiting), "%s (%s) waits while %s (%s, %s) has a free slot; %s",
                            e.taskId(), e.classKey(), idle.getWorkerId(), idle.getLabels(), idle.getResources(),
                            context);
                }
            }

            // Tasks: exactly one state, matching the line and the workers.
            for (String id : taskIds) {
                TaskRecord t = store.task(id);
                if (t == null) {
                    continue; // never accepted (invalid input)
                }
                TaskState state = t.getState();
                seen.merge(state, 1, Integer::sum);
                List<AttemptRecord> attempts = t.getAttempts();
                int ended = 0;
                for (AttemptRecord a : attempts) {
                    ended += a.getOutcome() != null ? 1 : 0;
                }
                boolean inLine = queued.containsKey(id);
                switch (state) {
                    case WAITING -> {
                        WaitingQueue.Entry e = queued.get(id);
                        if (t.getRank() == Ordering.NOT_IN_LINE) {
                            require(!inLine && t.getTimerAt() != null && store.timers().all().contains(
                                    new TimerQueue.Timer(t.getTimerAt().toEpochMilli(), id)),
                                    "delayed %s has no timer or is in line (%s); %s", id, e, context);
                        } else {
                            require(inLine && e.classKey().equals(Requirement.keyOf(t.getTask()))
                                    && e.place().equals(Ordering.place(t)), "waiting %s is queued as %s; %s", id, e,
                                    context);
                        }
                        require(ended == attempts.size(), "waiting %s has an open attempt; %s", id, context);
                        require(t.getWaitingReason() != null && !t.getWaitingReason().isBlank(),
                                "waiting %s does not say why; %s", id, context);
                    }
                    case ASSIGNED, RUNNING -> {
                        AttemptRecord current = attempts.get(attempts.size() - 1);
                        require(!inLine && ended == attempts.size() - 1 && current.getOutcome() == null,
                                "%s is %s with attempts %s (queued: %s); %s", id, state, attempts, inLine, context);
                        String key = id + "#" + current.getAttempt();
                        require(current.getWorkerId().equals(holder.get(key)), "%s is held by %s, not %s; %s", key,
                                holder.get(key), current.getWorkerId(), context);
                        WorkerRecord w = workers.get(current.getWorkerId());
                        require(satisfies(w, t.getTask()),
                                "%s runs on %s, which does not satisfy %s; %s", id, w.getWorkerId(),
                                Requirement.of(t.getTask()), context);
                    }
                    default -> require(!inLine && ended == attempts.size(),
                            "%s is %s but queued (%s) or has an open attempt; %s", id, state, inLine, context);
                }
            }

            PoolSnapshot snapshot = scheduler.snapshot();
            int groupCapacity = 0;
            for (GroupSnapshot g : snapshot.groups()) {
                require(g.busy() <= g.capacity(), "group %s busy beyond capacity; %s", g, context);
                groupCapacity += g.capacity();
            }
            require(snapshot.capacity() == capacity && groupCapacity == capacity && snapshot.busy() == busy
                            && snapshot.drainingBusy() == drainingBusy && snapshot.waiting() == queued.size(),
                    "snapshot %s but capacity %d busy %d draining %d queued %d; %s", snapshot, capacity, busy,
                    drainingBusy, queued.size(), context);

            // The per-class view: every line, its count, its head first in line, and a reason.
            Map<String, Long> reported = new HashMap<>();
            for (ClassSnapshot c : scheduler.classes()) {
                reported.put(c.classKey(), c.waiting());
                WaitingQueue.Entry head = store.waiting().first(c.classKey());
                require(head != null && head.taskId().equals(c.headTaskId()) && c.reason() != null
                                && !c.reason().isBlank() && c.headWaitingSince() != null,
                        "class %s reports head %s (line starts with %s) and reason %s; %s", c.classKey(),
                        c.headTaskId(), head, c.reason(), context);
            }
            require(reported.equals(perClass), "classes() reports %s but the lines hold %s; %s", reported, perClass,
                    context);
        }

        /**
         * Soft routing: no attempt of this step went to a worker its task prefers less than an
         * ACTIVE worker satisfying it that still has a free slot (a slot free now was free all step).
         */
        void preferences(PoolScheduler scheduler, List<String> workerIds, List<AttemptAssigned> assigned,
                         String context) {
            if (assigned.isEmpty()) {
                return;
            }
            List<WorkerRecord> idle = new ArrayList<>();
            for (String id : workerIds) {
                WorkerRecord w = scheduler.worker(id);
                if (w != null && w.getState() == WorkerState.ACTIVE && w.getRunning().size() < w.getSlots()) {
                    idle.add(w);
                }
            }
            for (AttemptAssigned a : assigned) {
                TaskRecord t = store.task(a.getTaskId());
                if (t.getTask().getPreferences().isEmpty()) {
                    continue;
                }
                int chosen = Preferences.score(t.getTask().getPreferences(), LabelSet.of(a.getGroup()));
                for (WorkerRecord w : idle) {
                    int score = Preferences.score(t.getTask().getPreferences(), LabelSet.of(w.getLabels()));
                    require(!satisfies(w, t.getTask()) || score <= chosen,
                            "%s went to %s (score %d) while %s (score %d) was free; %s", a.getTaskId(),
                            a.getWorkerId(), chosen, w.getWorkerId(), score, context);
                }
            }
        }

        /**
         * Whether a worker satisfies a task's full requirement, worked out here from the raw events
         * (not by the scheduler's matching code), as cronoq states the rule: every required label,
         * then every requested dimension a threshold on what the worker published.
         */
        private static boolean satisfies(WorkerRecord w, TaskSubmitted task) {
            for (Map.Entry<String, String> label : task.getLabels().entrySet()) {
                if (!label.getValue().equals(w.getLabels().get(label.getKey()))) {
                    return false;
                }
            }
            ResourceRequest r = task.getResources();
            if (r == null || (positive(r.getCpuMillis()) + positive(r.getMemoryBytes()) + positive(r.getDiskBytes())
                    + positive(r.getGpu() == null ? null : r.getGpu().longValue()) == 0 && r.getPackages().isEmpty())) {
                return true;
            }
            WorkerResources has = w.getResources();
            if (has == null) {
                return false;
            }
            long freeGpus = has.getGpus().stream().filter(g -> g.getMemoryFreeBytes() > 0).count();
            if (has.getCpuMillis() < positive(r.getCpuMillis()) || has.getMemoryBytes() < positive(r.getMemoryBytes())
                    || has.getDiskBytes() < positive(r.getDiskBytes())
                    || freeGpus < positive(r.getGpu() == null ? null : r.getGpu().longValue())) {
                return false;
            }
            for (String p : r.getPackages()) {
                if (!PackageRequirement.parse("package", p).satisfiedBy(has.getPackages())) {
                    return false;
                }
            }
            return true;
        }

        private static long positive(Long n) {
            return n == null ? 0 : n;
        }
    }

    private static String taskIdOf(SpecificRecord event) {
        if (event.getSchema().getField("taskId") == null) {
            return null;
        }
        Object id = event.get(event.getSchema().getField("taskId").pos());
        return id == null ? null : id.toString();
    }

    private static void require(boolean holds, String message, Object... args) {
        if (!holds) {
            throw new AssertionError(String.format(message, args));
        }
    }
}
