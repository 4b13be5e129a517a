package io.cronoq.ops.replay;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.Priority;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.TimeRules;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;

/**
 * Records a journal without Kafka: drives one {@link PoolScheduler} per pool the way the topology
 * does (each accepted input and decision becomes a {@link JournalEntry} stamped with the input's
 * record time, and with the time the scheduler heard the input where that differs), with workers
 * that run what they are given: each attempt starts after a delay (from its fixed start, if it has
 * one) and reports success or failure after its run time, scripted per task or drawn from a
 * deterministic random. Some inputs can be stamped earlier than they are processed, as Kafka
 * Streams does when it takes a late record from one input topic after newer ones from another, and
 * a submission can come from a producer whose clock is off ({@link #submitFrom}).
 *
 * <p>Time's decisions come from ticks, journaled at the tick's time: a pool is ticked when its
 * scheduler has something due ({@link PoolScheduler#nextDue()}), exactly then, as a topology with
 * an infinitely fine tick interval would, and before the inputs of that same time. By default no
 * worker is ever evicted (no heartbeat is sent); {@link #heartbeats} makes workers heartbeat every
 * {@value #HEARTBEAT_INTERVAL_MS} ms and the scheduler also tick every {@value #TICK_INTERVAL_MS} ms,
 * so a worker {@linkplain #silence silenced} is evicted as the real scheduler would.
 */
final class JournalRecorder {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /** In heartbeat mode: how often live workers heartbeat, ms. */
    static final long HEARTBEAT_INTERVAL_MS = 3_000;
    /** In heartbeat mode: how often every pool is ticked besides when something is due, ms. */
    static final long TICK_INTERVAL_MS = 1_000;

    /** What a worker does with one attempt: start after {@code startDelayMs} (negative: never says), run, report. */
    record Run(long startDelayMs, long runMs, boolean fails, boolean retryable) {
        static Run succeeds(long startDelayMs, long runMs) {
            return new Run(startDelayMs, runMs, false, false);
        }

        static Run fails(long startDelayMs, long runMs) {
            return new Run(startDelayMs, runMs, true, true);
        }
    }

    /** At one time: the periodic heartbeats and tick, then the tick of what is due, then inputs. */
    private static final int BEAT = 0;
    private static final int TICK = 1;
    private static final int INPUT = 2;

    /**
     * One thing to process; {@code input} is null for a tick or beat. {@code skewMs}: how far its
     * producer's clock, which stamps its record, is off the scheduler's.
     */
    private record Pending(long time, int kind, long order, String pool, SpecificRecord input, long skewMs) {}

    private final Random random;
    private final double failureRate;
    private final double lateStampRate;
    private final Map<String, Deque<Run>> scripted = new HashMap<>();
    private final PriorityQueue<Pending> queue = new PriorityQueue<>(Comparator.comparingLong(Pending::time)
            .thenComparingInt(Pending::kind).thenComparingLong(Pending::order));
    private final Map<String, PoolScheduler> schedulers = new TreeMap<>();
    private final Map<String, AttemptAssigned> live = new HashMap<>();
    /** The generation of every live worker, by pool and worker id. */
    private final Map<String, Long> generations = new TreeMap<>();
    /** When each silenced worker stopped heartbeating, by pool and worker id. */
    private final Map<String, Long> silentFrom = new HashMap<>();
    /** The generations ("pool/worker#generation") that left: their attempts' reports are never sent. */
    private final Set<String> departed = new HashSet<>();
    /** Per pool, the time of the tick that counts; other queued ticks are stale. */
    private final Map<String, Long> tickAt = new HashMap<>();
    private final List<JournalEntry> journal = new ArrayList<>();
    private TimeRules rules = Simulation.simulated(TimeRules.DEFAULT).withLeaveGraceMs(TimeRules.DEFAULT.leaveGraceMs());
    private boolean heartbeats;
    /** Inputs and ticks still queued: the periodic beat goes on while there are some. */
    private int work;
    private long order;

    /** A recorder whose unscripted attempts fail with {@code failureRate}; {@code lateStampRate} of inputs are stamped early. */
    JournalRecorder(long variant, double failureRate, double lateStampRate) {
        this.random = new Random(variant);
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

    /** A submission at {@code ms} to fill in further (notBefore, startAt, timeoutMs…) and {@link #submit(long, TaskSubmitted)}. */
    static TaskSubmitted.Builder task(long ms, String pool, String taskId) {
        return TaskSubmitted.newBuilder().setTaskId(taskId).setPool(pool).setLabels(Map.of()).setSubmittedAt(t(ms));
    }

    /** The durations the schedulers run with, but for the heartbeat timeout (see {@link #heartbeats}). */
    JournalRecorder rules(TimeRules rules) {
        this.rules = new TimeRules(this.rules.heartbeatTimeoutMs(), rules.reservationLeadMs(), rules.deadlineLeadMs(),
                rules.priorityStepMs(), rules.startToleranceMs(), this.rules.retentionMs());
        return this;
    }

    /**
     * Workers heartbeat every {@value #HEARTBEAT_INTERVAL_MS} ms (until {@linkplain #silence
     * silenced}), and a live worker silent for {@code timeoutMs} is evicted at the next of the ticks
     * that come every {@value #TICK_INTERVAL_MS} ms.
     */
    JournalRecorder heartbeats(long timeoutMs) {
        heartbeats = true;
        rules = new TimeRules(timeoutMs, rules.reservationLeadMs(), rules.deadlineLeadMs(), rules.priorityStepMs(),
                rules.startToleranceMs(), rules.retentionMs());
        queue.add(new Pending(0, BEAT, order++, null, null, 0));
        return this;
    }

    /** From {@code ms} on, the worker sends no heartbeat (it still reports on its attempts) until it registers again. */
    JournalRecorder silence(long ms, String pool, String workerId) {
        silentFrom.put(pool + "/" + workerId, ms);
        return this;
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
        return at(ms, task(ms, pool, taskId).setLabels(labels).build());
    }

    /** Submits {@code task} at {@code ms} (its {@code submittedAt} should say {@code ms}: see {@link #task}). */
    JournalRecorder submit(long ms, TaskSubmitted task) {
        return at(ms, task);
    }

    /**
     * Submits {@code task}, heard at {@code ms}, from a producer whose clock is {@code skewMs} off
     * the scheduler's: its record and its {@code submittedAt} say {@code ms + skewMs}.
     */
    JournalRecorder submitFrom(long skewMs, long ms, TaskSubmitted task) {
        task.setSubmittedAt(t(ms + skewMs));
        return at(ms, task, skewMs);
    }

    /** Submits a gang at {@code ms}: its members, named {@code <gangId>-<rank>}, start together or not at all. */
    JournalRecorder submitGang(long ms, io.cronoq.events.GangSubmitted gang) {
        return at(ms, gang);
    }

    JournalRecorder cancel(long ms, String pool, String taskId) {
        return at(ms, TaskCancelRequested.newBuilder().setTaskId(taskId).setPool(pool).setReason("not needed")
                .setRequestedAt(t(ms)).build());
    }

    /** An admin changes the pool's sharing policy at {@code ms}: a tenant's weight and quotas, or the pool's preemption. */
    JournalRecorder share(long ms, SharingPolicySet policy) {
        return at(ms, policy);
    }

    /** The worker drains, under its generation at the time (as a worker agent says it). */
    JournalRecorder drain(long ms, String pool, String workerId) {
        return at(ms, WorkerDraining.newBuilder().setWorkerId(workerId).setPool(pool).setAt(t(ms)).build());
    }

    /** The worker leaves, under its generation at the time (as a worker agent says it). */
    JournalRecorder leave(long ms, String pool, String workerId) {
        return at(ms, WorkerLeft.newBuilder().setWorkerId(workerId).setPool(pool).setReason("scaled down")
                .setAt(t(ms)).build());
    }

    private JournalRecorder at(long ms, SpecificRecord input) {
        return at(ms, input, 0);
    }

    private JournalRecorder at(long ms, SpecificRecord input, long skewMs) {
        queue.add(new Pending(ms, INPUT, order++, poolOf(input), input, skewMs));
        work++;
        return this;
    }

    /** Runs everything to the end and returns the journal, in processing order. */
    List<JournalEntry> record() {
        while (!queue.isEmpty()) {
            Pending next = queue.poll();
            long now = next.time();
            if (next.kind() == BEAT) {
                beat(now);
                if (work > 0) {
                    queue.add(new Pending(now + TICK_INTERVAL_MS, BEAT, order++, null, null, 0));
                }
                continue;
            }
            work--;
            String pool = next.pool();
            if (next.kind() == TICK) {
                if (Long.valueOf(now).equals(tickAt.get(pool))) {
                    tickAt.remove(pool);
                    apply(pool, schedulers.get(pool).tick(t(now)), now, now);
                    scheduleTick(pool, now);
                }
                continue;
            }
            SpecificRecord input = next.input();
            if (isReport(input) && (!live.containsKey(attemptKey(input)) || departed.contains(generationOf(pool, input)))) {
                continue;
            }
            PoolScheduler scheduler = schedulers.computeIfAbsent(pool,
                    p -> new PoolScheduler(p, new InMemoryPoolStore(), rules));
            asTheWorkerSays(pool, input, now);
            long stamp = (random.nextDouble() < lateStampRate ? now - 1 - random.nextInt(1500) : now) + next.skewMs();
            apply(pool, scheduler.apply(input, t(now)), stamp, now);
            scheduleTick(pool, now);
        }
        return List.copyOf(journal);
    }

    /** The periodic heartbeats (every {@value #HEARTBEAT_INTERVAL_MS} ms) and tick of every pool. */
    private void beat(long now) {
        for (var pool : schedulers.entrySet()) {
            String prefix = pool.getKey() + "/";
            if (now % HEARTBEAT_INTERVAL_MS == 0) {
                for (var worker : generations.entrySet()) {
                    Long silent = silentFrom.get(worker.getKey());
                    if (worker.getKey().startsWith(prefix) && (silent == null || silent > now)) {
                        apply(pool.getKey(), pool.getValue().apply(WorkerHeartbeat.newBuilder()
                                .setWorkerId(worker.getKey().substring(prefix.length())).setPool(pool.getKey())
                                .setGeneration(worker.getValue()).setSentAt(t(now)).build(), t(now)), now, now);
                    }
                }
            }
            apply(pool.getKey(), pool.getValue().tick(t(now)), now, now);
            scheduleTick(pool.getKey(), now);
        }
    }

    /** Queues a tick of the pool for when its scheduler next has something due. */
    private void scheduleTick(String pool, long now) {
        Instant due = schedulers.get(pool).nextDue();
        if (due == null) {
            tickAt.remove(pool);
            return;
        }
        long time = Math.max(now, due.toEpochMilli() - T0.toEpochMilli());
        Long queued = tickAt.get(pool);
        if (queued == null || queued != time) {
            tickAt.put(pool, time);
            queue.add(new Pending(time, TICK, order++, pool, null, 0));
            work++;
        }
    }

    /**
     * A drain or leave carries the worker's current generation, as a worker agent sends it; a
     * silenced worker that registers again heartbeats again.
     */
    private void asTheWorkerSays(String pool, SpecificRecord input, long now) {
        if (input instanceof WorkerDraining d && d.getGeneration() == null) {
            d.setGeneration(generations.get(pool + "/" + d.getWorkerId()));
        } else if (input instanceof WorkerLeft l && l.getGeneration() == null) {
            l.setGeneration(generations.get(pool + "/" + l.getWorkerId()));
        } else if (input instanceof WorkerRegistered r) {
            Long silent = silentFrom.get(pool + "/" + r.getWorkerId());
            if (silent != null && silent <= now) {
                silentFrom.remove(pool + "/" + r.getWorkerId());
            }
        }
    }

    private void apply(String pool, List<Decision> decisions, long stamp, long now) {
        for (Decision d : decisions) {
            if (d.journal()) {
                journal.add(Journal.entry(pool, t(stamp), stamp == now ? null : t(now), d.event(), d.cause()));
            }
            if (d.event() instanceof AttemptAssigned a) {
                live.put(a.getTaskId() + "#" + a.getAttempt(), a);
                plan(a, now);
            } else if (d.event() instanceof TaskFinished f) {
                live.remove(f.getTaskId() + "#" + f.getAttempt());
            } else if (d.event() instanceof AttemptRevoked r) {
                live.remove(r.getTaskId() + "#" + r.getAttempt());
            } else if (d.event() instanceof WorkerLeft l) {
                // A worker that leaves with attempts running abandons them (as an agent does after its drain
                // timeout): it reports none of them, so the scheduler loses them when its leave grace ends.
                departed.add(pool + "/" + l.getWorkerId() + "#" + l.getGeneration());
            } else if (d.event() instanceof WorkerAccepted w) {
                generations.put(pool + "/" + w.getWorkerId(), w.getGeneration());
            } else if (d.event() instanceof WorkerRemoved w) {
                generations.remove(pool + "/" + w.getWorkerId());
            }
        }
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
        // A worker holds a fixed-start attempt's slot until its start time, then starts it.
        long from = a.getStartAt() == null ? now : Math.max(now, a.getStartAt().toEpochMilli() - T0.toEpochMilli());
        long started = from + Math.max(0, run.startDelayMs());
        if (run.startDelayMs() >= 0) {
            at(started, AttemptStarted.newBuilder().setTaskId(a.getTaskId())
                    .setPool(a.getPool()).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(t(started)).build());
        }
        long finished = started + run.runMs();
        SpecificRecord report = run.fails()
                ? AttemptFailed.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool()).setAttempt(a.getAttempt())
                        .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(t(finished))
                        .setError("exit code 1").setRetryable(run.retryable()).build()
                : AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(a.getPool())
                        .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                        .setAt(t(finished)).build();
        at(finished, report);
    }

    /** "pool/worker#generation" of the worker a report comes from. */
    private static String generationOf(String pool, SpecificRecord report) {
        Journal.Attempt attempt = Journal.attemptOf(report);
        return pool + "/" + attempt.workerId() + "#" + attempt.generation();
    }

    private static String poolOf(SpecificRecord input) {
        return String.valueOf(input.get(input.getSchema().getField("pool").pos()));
    }

    private static boolean isReport(SpecificRecord input) {
        return input instanceof AttemptStarted || input instanceof AttemptSucceeded || input instanceof AttemptFailed;
    }

    private static String attemptKey(SpecificRecord report) {
        Object task = report.get(report.getSchema().getField("taskId").pos());
        Object attempt = report.get(report.getSchema().getField("attempt").pos());
        return task + "#" + attempt;
    }

    /**
     * A busy day in two pools: a batch pool with unlabeled, a100 and high-memory workers (one leaves
     * and comes back, one drains), an etl pool with two workers; dozens of tasks, a tenth of the
     * attempts failing, a few cancels, and a fifth of the inputs stamped late.
     */
    static List<JournalEntry> busyDay(long variant) {
        return busyDay(variant, false);
    }

    /**
     * The {@linkplain #busyDay(long) busy day}; {@code withTime} gives about half the batch tasks a
     * rule of time: a not-before, a fixed start, a timeout shorter than some of their runs, a
     * deadline, a higher or lower priority.
     */
    static List<JournalEntry> busyDay(long variant, boolean withTime) {
        JournalRecorder r = new JournalRecorder(variant, 0.12, 0.2);
        Random random = new Random(variant);
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
            long at = 1_000 + random.nextInt(240_000);
            TaskSubmitted.Builder task = task(at, "batch", "b" + i).setLabels(labels);
            if (withTime) {
                switch (random.nextInt(12)) {
                    case 0, 1 -> task.setNotBefore(t(at + 5_000 + random.nextInt(60_000)));
                    case 2 -> task.setStartAt(t(at + 20_000 + random.nextInt(100_000)));
                    case 3, 4 -> task.setTimeoutMs(20_000L + random.nextInt(20_000));
                    case 5 -> task.setDeadline(t(at + 60_000 + random.nextInt(600_000)));
                    case 6 -> task.setPriority(Priority.HIGH);
                    case 7 -> task.setPriority(Priority.LOW);
                    default -> { }
                }
            }
            r.submit(at, task.build());
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
