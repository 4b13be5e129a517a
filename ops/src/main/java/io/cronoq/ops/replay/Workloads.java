package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.schemas.events.Journal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;

/**
 * Journals of made-up but lifelike workloads, recorded as the scheduler records them: the inputs go
 * through the real placement policy, and each attempt runs for its task's true run time (drawn when
 * it is submitted, unknown to the policy), so the journal holds what a live pool would have journaled.
 * They give {@code cronoq eta-accuracy} something to measure on a machine without a recorded journal.
 * A workload with arrivals keeps them coming for {@link #ARRIVING_MS}, an hour longer than the span
 * it is looked at in ({@link Recorded#lookFrom} to {@link Recorded#lookTo}): every task waiting at a
 * look starts while the workload still behaves as it did before it, as a pool in service does.
 */
final class Workloads {

    static final String POOL = "eta";
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** The workloads there are, by name. */
    enum Kind {
        /** The benchmark's: one big backlog submitted at once, drained by a fixed fleet; run times alike. */
        DRAIN,
        /** Arrivals at random at about 95% of the fleet's capacity; one class, run times spread tenfold. */
        STEADY,
        /**
         * Two tenants on GPU and CPU workers: one submits in bursts of 150, the other steadily; short
         * (median 2 s) and long (median 60 s) tasks, so run times span two orders of magnitude.
         */
        BURSTY_MIXED;

        String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Kind of(String text) {
            for (Kind k : values()) {
                if (k.label().equals(text)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("'" + text + "' is not a workload; use drain, steady or bursty-mixed");
        }
    }

    /** How long arrivals go on in a workload that has them. */
    static final long ARRIVING_MS = 7_200_000;
    /** Where looks are taken in a workload with arrivals: from minute 6 (run times to learn from) to minute 60. */
    private static final long LOOK_FROM_MS = 360_000;
    private static final long LOOK_TO_MS = 3_600_000;

    /**
     * A recorded workload: its journal, and the span to look at it in (epoch milliseconds), or {@code null}
     * ends when any span of the journal will do.
     */
    record Recorded(List<JournalEntry> journal, Long lookFrom, Long lookTo) {}

    private record Pending(long time, long order, SpecificRecord input) {}

    private final PoolScheduler scheduler = new PoolScheduler(POOL, new InMemoryPoolStore(),
            Simulation.simulated(TimeRules.DEFAULT)); // its workers are never silent: they send no heartbeats here
    private final PriorityQueue<Pending> queue = new PriorityQueue<>((a, b) -> a.time != b.time
            ? Long.compare(a.time, b.time) : Long.compare(a.order, b.order));
    private final Map<String, Long> trueRunMs = new HashMap<>();
    private final List<JournalEntry> journal = new ArrayList<>();
    private final SplittableRandom random;
    private long order;
    private int tasks;

    private Workloads(long variant) {
        this.random = new SplittableRandom(variant);
    }

    /** One run of the workload; {@code variant} picks its random draws. */
    static Recorded record(Kind kind, long variant) {
        Workloads w = new Workloads(variant);
        switch (kind) {
            case DRAIN -> {
                w.workers(8, 4, Map.of());
                for (int i = 0; i < 3_000; i++) {
                    w.submit(0, "default", Map.of(), w.logNormal(2_000, 0.3));
                }
            }
            case STEADY -> {
                w.workers(4, 4, Map.of());
                // 16 slots, mean run time about 5.5 s: capacity about 2.9 tasks a second; arrivals 2.75 a second (95%).
                long t = 0;
                while (t < ARRIVING_MS) {
                    t += Math.round(w.random.nextExponential() * 1_000 / 2.75);
                    w.submit(t, "default", Map.of(), w.logNormal(4_000, 0.8));
                }
            }
            case BURSTY_MIXED -> {
                w.workers(3, 2, Map.of("gpu", "a100"));
                w.workers(6, 4, Map.of());
                for (long burst = 60_000; burst < ARRIVING_MS; burst += 900_000) {
                    for (int i = 0; i < 150; i++) {
                        boolean gpu = i % 3 == 0;
                        w.submit(burst + i * 20, "research", gpu ? Map.of("gpu", "a100") : Map.of(),
                                gpu ? w.logNormal(60_000, 0.6) : w.logNormal(2_000, 0.6));
                    }
                }
                long t = 0;
                while (t < ARRIVING_MS) {
                    t += Math.round(w.random.nextExponential() * 1_000);
                    boolean gpu = w.random.nextDouble() < 0.05;
                    w.submit(t, "prod", gpu ? Map.of("gpu", "a100") : Map.of(),
                            gpu ? w.logNormal(60_000, 0.6) : w.logNormal(8_000, 0.6));
                }
            }
        }
        w.loop();
        return kind == Kind.DRAIN ? new Recorded(w.journal, null, null) : new Recorded(w.journal,
                T0.toEpochMilli() + LOOK_FROM_MS, T0.toEpochMilli() + LOOK_TO_MS);
    }

    private void workers(int count, int slots, Map<String, String> labels) {
        String prefix = labels.isEmpty() ? "cpu-" : "gpu-";
        for (int i = 0; i < count; i++) {
            queue.add(new Pending(0, order++, WorkerRegistered.newBuilder().setWorkerId(prefix + i).setPool(POOL)
                    .setLabels(new HashMap<>(labels)).setSlots(slots).setRegisteredAt(T0).build()));
        }
    }

    /** A task submitted at {@code ms} that will truly run {@code runMs}; it declares a generous timeout. */
    private void submit(long ms, String tenant, Map<String, String> labels, long runMs) {
        String id = "t" + (tasks++);
        trueRunMs.put(id, runMs);
        long declared = labels.isEmpty() ? 60_000 : 600_000;
        queue.add(new Pending(ms, order++, TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL)
                .setLabels(new HashMap<>(labels)).setTenant(tenant).setTimeoutMs(Math.max(declared, runMs * 2))
                .setSubmittedAt(T0.plusMillis(ms)).build()));
    }

    private long logNormal(long medianMs, double sigma) {
        return Math.max(1, Math.round(medianMs * Math.exp(sigma * random.nextGaussian())));
    }

    private void loop() {
        while (true) {
            Instant due = scheduler.nextDue();
            Pending next = queue.peek();
            if (next == null && due == null) {
                return;
            }
            long at;
            List<Decision> decisions;
            if (next != null && (due == null || next.time() <= due.toEpochMilli() - T0.toEpochMilli())) {
                queue.poll();
                at = next.time();
                decisions = scheduler.apply(next.input(), T0.plusMillis(at));
            } else {
                at = due.toEpochMilli() - T0.toEpochMilli();
                decisions = scheduler.tick(due);
            }
            for (Decision d : decisions) {
                if (!d.journal()) {
                    continue;
                }
                journal.add(Journal.entry(POOL, T0.plusMillis(at), d.event(), d.cause()));
                if (d.event() instanceof AttemptAssigned a) {
                    run(a, at);
                }
            }
        }
    }

    /** The worker of an assigned attempt starts it at once and reports after the task's true run time. */
    private void run(AttemptAssigned a, long at) {
        queue.add(new Pending(at, order++, AttemptStarted.newBuilder().setTaskId(a.getTaskId()).setPool(POOL)
                .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                .setAt(T0.plusMillis(at)).build()));
        long end = at + trueRunMs.get(a.getTaskId());
        queue.add(new Pending(end, order++, AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(POOL)
                .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                .setAt(T0.plusMillis(end)).build()));
    }
}
