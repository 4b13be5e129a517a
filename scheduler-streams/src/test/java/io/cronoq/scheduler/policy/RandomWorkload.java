package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Priority;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

/**
 * A deterministic stream of inputs that reacts to the decisions it gets back: registrations (new and
 * again, with changing labels and published resources, some with none), submissions (some with
 * labels or resources no worker has, some with preferences, some duplicates),
 * starts, successes, failures, stale reports, cancellations, heartbeats, drains, leaves, the odd
 * invalid input, and time: ticks (one second passes per step), tasks with priorities, deadlines,
 * delayed and fixed starts, timeouts and retry backoffs, so evictions, lease expiries and timers
 * all happen. Two instances with the same variant fed the same decisions produce the same inputs.
 */
final class RandomWorkload {

    private static final String[][] WORKER_LABELS = {
            {}, {}, {"gpu=a100"}, {"zone=eu"}, {"zone=us"}, {"gpu=a100", "zone=eu"}, {"disk=ssd", "zone=us"},
    };
    private static final String[][] TASK_LABELS = {
            {}, {}, {}, {"gpu=a100"}, {"zone=eu"}, {"zone=us"}, {"gpu=a100", "zone=eu"}, {"disk=ssd"},
            {"gpu=h100"}, // no worker ever has it: waits until cancelled
    };

    /** What a worker may publish: nothing, or one of a few machine shapes. */
    private static final List<Supplier<In.Has>> WORKER_RESOURCES = List.of(
            () -> null,
            () -> In.has().cpu("2").memory("4Gi").disk("50G").pkg("torch", "1.13.1"),
            () -> In.has().cpu("16").memory("64Gi").disk("500Gi").pkg("torch", "2.1.0").pkg("NumPy", "1.26.4"),
            () -> In.has().cpu("8").memory("32Gi").gpu("a100", "40Gi").gpu("a100", "0").pkg("torch", "2.2.0rc1"),
            () -> In.has().cpu("8").memory("32Gi").gpu("a100", "40Gi").gpu("a100", "20Gi").pkg("torch", "2.2.0"));

    /** What a task may need: mostly nothing, else one or a few dimensions (cpu 32 no worker has). */
    private static final List<Supplier<In.Needs>> TASK_NEEDS = List.of(
            () -> null, () -> null, () -> null, () -> null,
            () -> In.needs().cpu("1"),
            () -> In.needs().cpu("500m").memory("8Gi"),
            () -> In.needs().memory("16G").disk("100G"),
            () -> In.needs().gpu(1),
            () -> In.needs().gpu(2).memory("16Gi"),
            () -> In.needs().packages("torch>=2.0,<3"),
            () -> In.needs().packages("torch~=2.1.0", "numpy"),
            () -> In.needs().cpu("32"));

    /** Worker ids in use; past it, registrations reuse ids (restarts, returns after leaving). */
    private static final int MAX_WORKERS = 24;

    private final Random random;
    private final Map<String, Long> generations = new HashMap<>();
    private final List<String> workerIds = new ArrayList<>();
    private final List<String> taskIds = new ArrayList<>();
    /** Attempts assigned and not ended, as the workers would know them. */
    private final List<AttemptAssigned> live = new ArrayList<>();
    /** Attempts that ended: their reports are stale. */
    private final List<AttemptAssigned> ended = new ArrayList<>();
    private int nextTask;
    private int nextWorker;
    private long second;

    RandomWorkload(long variant) {
        this.random = new Random(variant);
    }

    List<String> taskIds() {
        return taskIds;
    }

    List<String> workerIds() {
        return workerIds;
    }

    /** Chooses the next input, hands it to the scheduler, learns from its decisions and returns them. */
    List<Decision> step(PoolScheduler scheduler) {
        List<Decision> out = apply(scheduler);
        learn(out);
        return out;
    }

    private List<Decision> apply(PoolScheduler s) {
        second++;
        if (random.nextInt(100) < 8) {
            return s.tick(T0.plusSeconds(second));
        }
        int roll = random.nextInt(100);
        if (workerIds.size() < 2 || (roll < 6 && workerIds.size() < MAX_WORKERS)) {
            return s.register(register(newWorkerId()));
        }
        if (roll < 9) {
            return s.register(register(pick(workerIds)));
        }
        if (roll < 38) {
            String id = "t" + nextTask++;
            taskIds.add(id);
            return s.submit(newTask(id));
        }
        if (roll < 40 && !taskIds.isEmpty()) {
            return s.submit(In.task(pick(taskIds), pick(TASK_LABELS)));
        }
        if (roll < 50 && !live.isEmpty()) {
            AttemptAssigned a = pick(live);
            return s.started(new AttemptStarted(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), T0.plusSeconds(second)));
        }
        if (roll < 72 && !live.isEmpty()) {
            AttemptAssigned a = pick(live);
            return s.succeeded(new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), T0.plusSeconds(second), null));
        }
        if (roll < 80 && !live.isEmpty()) {
            AttemptAssigned a = pick(live);
            return s.failed(new AttemptFailed(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), T0.plusSeconds(second), "error " + second, random.nextInt(4) > 0));
        }
        if (roll < 83 && !ended.isEmpty()) {
            AttemptAssigned a = pick(ended);
            return s.succeeded(new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), T0.plusSeconds(second), null));
        }
        if (roll < 87 && !taskIds.isEmpty()) {
            return s.cancel(In.cancel(pick(taskIds)));
        }
        if (roll < 92) {
            String id = pick(workerIds);
            long generation = generations.get(id) - (random.nextInt(5) == 0 ? 1 : 0);
            return s.heartbeat(new WorkerHeartbeat(id, POOL, generation, List.of(), T0.plusSeconds(second)));
        }
        if (roll < 94) {
            return s.drain(new WorkerDraining(pick(workerIds), POOL, null, T0.plusSeconds(second)));
        }
        if (roll < 97) {
            return s.leave(new WorkerLeft(pick(workerIds), POOL, null, "scale-in", T0.plusSeconds(second)));
        }
        if (roll < 98) {
            return s.register(new WorkerRegistered("bad worker", POOL, Map.of(), 2, null, null, null, null,
                    T0.plusSeconds(second)));
        }
        return s.submit(In.task("t" + nextTask++, "gpu=")); // invalid label value: rejected, creates nothing
    }

    private WorkerRegistered register(String id) {
        String[] labels = pick(WORKER_LABELS);
        In.Has resources = pick(WORKER_RESOURCES).get();
        return new WorkerRegistered(id, POOL, In.labels(labels), 1 + random.nextInt(4),
                resources == null ? null : resources.build(), null, null, null, T0.plusSeconds(second));
    }

    private TaskSubmitted newTask(String id) {
        In.Needs needs = pick(TASK_NEEDS).get();
        TaskSubmitted task = needs == null ? In.task(id, pick(TASK_LABELS)) : In.task(id, needs, pick(TASK_LABELS));
        task.setSubmittedAt(T0.plusSeconds(second));
        time(task);
        int preference = random.nextInt(6);
        if (preference == 0) {
            In.prefer(task, 10, "zone=eu");
        } else if (preference == 1) {
            In.prefer(In.prefer(task, 5, "gpu=a100"), 20, "zone=us", "disk=ssd");
        }
        return task;
    }

    /** Some tasks get a priority, a deadline, a delayed or fixed start, a timeout, a retry policy. */
    private void time(TaskSubmitted task) {
        Instant now = T0.plusSeconds(second);
        int roll = random.nextInt(20);
        if (roll < 3) {
            task.setPriority(Priority.values()[random.nextInt(Priority.values().length)]);
        } else if (roll < 5) {
            task.setDeadline(now.plusSeconds(random.nextInt(1_200)));
        } else if (roll < 6) {
            task.setNotBefore(now.plusSeconds(1 + random.nextInt(60)));
        } else if (roll < 7) {
            task.setStartAt(now.plusSeconds(random.nextInt(120)));
            task.setStartToleranceMs(random.nextBoolean() ? null : 5_000L);
        }
        if (random.nextInt(5) == 0) {
            task.setTimeoutMs(5_000L + random.nextInt(60_000));
        }
        if (random.nextInt(5) == 0) {
            task.setRetry(new RetryPolicy(1 + random.nextInt(4), random.nextInt(2) * 2_000L, 10_000L, 2.0));
        }
    }

    private String newWorkerId() {
        String id = "w" + nextWorker++;
        workerIds.add(id);
        return id;
    }

    private void learn(List<Decision> out) {
        for (Decision d : out) {
            if (d.event() instanceof AttemptAssigned a) {
                live.add(a);
            } else if (d.event() instanceof TaskFinished f) {
                end(f.getTaskId(), f.getAttempt());
            } else if (d.event() instanceof AttemptRevoked r) {
                end(r.getTaskId(), r.getAttempt());
            } else if (d.event() instanceof io.cronoq.events.WorkerRemoved r) {
                generations.put(r.getWorkerId(), r.getGeneration());
            } else if (d.event() instanceof WorkerAccepted w) {
                generations.put(w.getWorkerId(), w.getGeneration());
            }
        }
    }

    private void end(String taskId, int attempt) {
        for (int i = 0; i < live.size(); i++) {
            AttemptAssigned a = live.get(i);
            if (a.getAttempt() == attempt && a.getTaskId().equals(taskId)) {
                ended.add(live.remove(i));
                return;
            }
        }
    }

    private <T> T pick(List<T> from) {
        return from.get(random.nextInt(from.size()));
    }

    private String[] pick(String[][] from) {
        return from[random.nextInt(from.length)];
    }
}
