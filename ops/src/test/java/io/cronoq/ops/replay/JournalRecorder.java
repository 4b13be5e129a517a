package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.InMemoryPoolStore;
import io.cronoq.scheduler.policy.PoolScheduler;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;

/**
 * Records a journal without Kafka: drives one {@link PoolScheduler} per pool the way the topology
 * does (each accepted input and decision becomes a {@link JournalEntry} stamped with the input's
 * record time), with workers that run what they are given: each attempt starts after a delay and
 * reports success or failure after its run time, scripted per task or drawn from a seeded random.
 * Some inputs can be stamped earlier than they are processed, as Kafka Streams does when it takes
 * a late record from one input topic after newer ones from another.
 */
final class JournalRecorder {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** What a worker does with one attempt: start after {@code startDelayMs} (negative: never says), run, report. */
    record Run(long startDelayMs, long runMs, boolean fails, boolean retryable) {
        static Run succeeds(long startDelayMs, long runMs) {
            return new Run(startDelayMs, runMs, false, false);
        }

        static Run fails(long startDelayMs, long runMs) {
            return new Run(startDelayMs, runMs, true, true);
        }
    }

    private record Pending(long time, long order, SpecificRecord input) {}

    private final Random random;
    private final double failureRate;
    private final double lateStampRate;
    private final Map<String, Deque<Run>> scripted = new HashMap<>();
    private final PriorityQueue<Pending> queue = new PriorityQueue<>(
            Comparator.comparingLong(Pending::time).thenComparingLong(Pending::order));
    private final Map<String, PoolScheduler> schedulers = new HashMap<>();
    private final Map<String, AttemptAssigned> live = new HashMap<>();
    private final List<JournalEntry> journal = new ArrayList<>();
    private long order;

    /** A recorder whose unscripted attempts fail with {@code failureRate}; {@code lateStampRate} of inputs are stamped early. */
    JournalRecorder(long seed, double failureRate, double lateStampRate) {
        this.random = new Random(seed);
        this.failureRate = failureRate;
        this.lateStampRate = lateStampRate;
    }

    /** A recorder with no randomness left: every attempt must be scripted or it succeeds after 1 s. */
    static JournalRecorder scripted() {
        return new JournalRecorder(0, 0, 0);
    }

    static Instant t(long ms) {
        return T0.plusMillis(ms);
    }

    JournalRecorder script(String taskId, Run... runs) {
        scripted.computeIfAbsent(taskId, k -> new ArrayDeque<>()).addAll(List.of(runs));
        return this;
    }

    JournalRecorder register(long ms, String pool, String workerId, Map<String, String> labels, int slots) {
        return at(ms, WorkerRegistered.newBuilder().setWorkerId(workerId).setPool(pool).setLabels(labels)
                .setSlots(slots).setRegisteredAt(t(ms)).build());
    }

    JournalRecorder submit(long ms, String pool, String taskId, Map<String, String> labels) {
        return at(ms, TaskSubmitted.newBuilder().setTaskId(taskId).setPool(pool).setLabels(labels)
                .setSubmittedAt(t(ms)).build());
    }

    JournalRecorder cancel(long ms, String pool, String taskId) {
        return at(ms, TaskCancelRequested.newBuilder().setTaskId(taskId).setPool(pool).setReason("not needed")
                .setRequestedAt(t(ms)).build());
    }

    JournalRecorder drain(long ms, String pool, String workerId) {
        return at(ms, WorkerDraining.newBuilder().setWorkerId(workerId).setPool(pool).setAt(t(ms)).build());
    }

    JournalRecorder leave(long ms, String pool, String workerId) {
        return at(ms, WorkerLeft.newBuilder().setWorkerId(workerId).setPool(pool).setReason("scaled down")
                .setAt(t(ms)).build());
    }

    private JournalRecorder at(long ms, SpecificRecord input) {
        queue.add(new Pending(ms, order++, input));
        return this;
    }

    /** Runs everything to the end and returns the journal, in processing order. */
    List<JournalEntry> record() {
        while (!queue.isEmpty()) {
            Pending next = queue.poll();
            if (isReport(next.input()) && !live.containsKey(attemptKey(next.input()))) {
                continue;
            }
            String pool = String.valueOf(next.input().get(next.input().getSchema().getField("pool").pos()));
            PoolScheduler scheduler = schedulers.computeIfAbsent(pool, p -> new PoolScheduler(p, new InMemoryPoolStore()));
            long stamp = random.nextDouble() < lateStampRate ? next.time() - 1 - random.nextInt(1500) : next.time();
            for (Decision d : dispatch(scheduler, next.input())) {
                if (d.journal()) {
                    journal.add(new JournalEntry(pool, t(stamp), d.event(), d.cause()));
                }
                if (d.event() instanceof AttemptAssigned a) {
                    live.put(a.getTaskId() + "#" + a.getAttempt(), a);
                    plan(a, next.time());
                } else if (d.event() instanceof TaskFinished f) {
                    live.remove(f.getTaskId() + "#" + f.getAttempt());
                } else if (d.event() instanceof AttemptRevoked r) {
                    live.remove(r.getTaskId() + "#" + r.getAttempt());
                }
            }
        }
        return List.copyOf(journal);
    }

    private void plan(AttemptAssigned a, long now) {
        Deque<Run> script = scripted.get(a.getTaskId());
        Run run;
        if (script != null && !script.isEmpty()) {
            run = script.poll();
        } else if (failureRate == 0 && lateStampRate == 0) {
            run = Run.succeeds(0, 1_000);
        } else {
            boolean fails = random.nextDouble() < failureRate;
            run = new Run(random.nextInt(10) == 0 ? -1 : random.nextInt(2_000), 5_000 + random.nextInt(55_000), fails,
                    !fails || random.nextInt(5) != 0);
        }
        long started = now + Math.max(0, run.startDelayMs());
        if (run.startDelayMs() >= 0) {
            queue.add(new Pending(started, order++, AttemptStarted.newBuilder().setTaskId(a.getTaskId())
                    .setPool(a.getPool()).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(t(started)).build()));
        }
        long finished = started + run.runMs();
        SpecificRecord report = run.fails()
                ? AttemptFailed.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool()).setAttempt(a.getAttempt())
                        .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(t(finished))
                        .setError("exit code 1").setRetryable(run.retryable()).build()
                : AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool())
                        .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                        .setAt(t(finished)).build();
        queue.add(new Pending(finished, order++, report));
    }

    private static boolean isReport(SpecificRecord input) {
        return input instanceof AttemptStarted || input instanceof AttemptSucceeded || input instanceof AttemptFailed;
    }

    private static String attemptKey(SpecificRecord report) {
        Object task = report.get(report.getSchema().getField("taskId").pos());
        Object attempt = report.get(report.getSchema().getField("attempt").pos());
        return task + "#" + attempt;
    }

    private static List<Decision> dispatch(PoolScheduler scheduler, SpecificRecord input) {
        if (input instanceof TaskSubmitted e) {
            return scheduler.submit(e);
        } else if (input instanceof TaskCancelRequested e) {
            return scheduler.cancel(e);
        } else if (input instanceof WorkerRegistered e) {
            return scheduler.register(e);
        } else if (input instanceof WorkerDraining e) {
            return scheduler.drain(e);
        } else if (input instanceof WorkerLeft e) {
            return scheduler.leave(e);
        } else if (input instanceof AttemptStarted e) {
            return scheduler.started(e);
        } else if (input instanceof AttemptSucceeded e) {
            return scheduler.succeeded(e);
        }
        return scheduler.failed((AttemptFailed) input);
    }

    /**
     * A busy day in two pools: a batch pool with unlabeled, a100 and high-memory workers (one leaves
     * and comes back, one drains), an etl pool with two workers; dozens of tasks, a tenth of the
     * attempts failing, a few cancels, and a fifth of the inputs stamped late.
     */
    static List<JournalEntry> busyDay(long seed) {
        JournalRecorder r = new JournalRecorder(seed, 0.12, 0.2);
        Random random = new Random(seed);
        Map<String, String> none = Map.of();
        Map<String, String> gpu = Map.of("gpu", "a100");
        Map<String, String> mem = Map.of("mem", "high");
        r.register(0, "batch", "cpu-1", none, 2).register(0, "batch", "cpu-2", none, 2)
                .register(0, "batch", "cpu-3", none, 1).register(0, "batch", "gpu-1", gpu, 1)
                .register(500, "batch", "mem-1", mem, 2).register(0, "etl", "etl-1", none, 1)
                .register(0, "etl", "etl-2", Map.of("disk", "ssd"), 1);
        r.leave(90_000, "batch", "cpu-3").register(150_000, "batch", "cpu-3", none, 1);
        r.drain(200_000, "batch", "mem-1");
        for (int i = 0; i < 60; i++) {
            int dice = random.nextInt(100);
            Map<String, String> labels = dice < 60 ? none : dice < 85 ? gpu : mem;
            r.submit(1_000 + random.nextInt(240_000), "batch", "b" + i, labels);
        }
        for (int i = 0; i < 20; i++) {
            r.submit(1_000 + random.nextInt(200_000), "etl", "e" + i, random.nextBoolean() ? none : Map.of("disk", "ssd"));
        }
        for (int i = 0; i < 60; i += 9) {
            r.cancel(30_000 + random.nextInt(200_000), "batch", "b" + i);
        }
        return r.record();
    }
}
