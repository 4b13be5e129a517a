package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.RateBucket;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.events.Journal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Long random runs of tasks holding concurrency keys (with differing limits, some set by an admin)
 * and taking units of rate limits (one defined only midway), on workers that come and go, with
 * successes, failures and retries, lease expiries, deadlines coming near, and cancellations. Time moves on by up to a
 * quarter second per step, and every step ends with a tick, as the scheduler's rate ticks do.
 * After every step: no key is held by more attempts than the smallest limit among its holders; no
 * task waits while its limits admit it and an ACTIVE worker that could run it has a free slot (so
 * none waits behind a task holding a full key). Over the whole run no rate limit hands out more
 * than its burst plus its refill over any window, and the journal folds to the stores.
 */
// Its variants are independent runs: they go side by side.
@Execution(ExecutionMode.CONCURRENT)
class LimitsPropertyTest {

    private static final int STEPS = 4_000;
    private static final String[] KEYS = {"k0", "k1", "k2", "k3", "k4", "k5"};
    private static final Map<String, double[]> RATES = Map.of("r0", new double[] {5, 2}, "r1", new double[] {2, 1},
            "r2", new double[] {20, 3});
    /** The step at which the rate limit r2 is defined (its tasks wait for it until then) and k1's limit raised. */
    private static final int MIDWAY = STEPS / 2;

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(longs = {3, 11, 2026})
    void keysAndRatesHoldTheirLimitsAndHoldUpNoOneElse(long variant) {
        Run run = new Run(new Random(variant));
        run.apply(In.keyLimit("k0", 2, T0));
        run.apply(In.rateLimit("r0", RATES.get("r0")[0], (int) RATES.get("r0")[1], T0));
        run.apply(In.rateLimit("r1", RATES.get("r1")[0], (int) RATES.get("r1")[1], T0));
        for (int w = 1; w <= 4; w++) {
            run.register("w" + w);
        }

        for (int step = 1; step <= STEPS; step++) {
            run.now = run.now.plusMillis(run.random.nextInt(250));
            if (step == MIDWAY) {
                run.apply(In.rateLimit("r2", RATES.get("r2")[0], (int) RATES.get("r2")[1], run.now));
                run.apply(In.keyLimit("k1", 3, run.now));
            }
            run.randomInput();
            run.track(run.scheduler.tick(run.now));
            run.checkKeys("step " + step);
            run.checkNoneWaitsThatCouldRun("step " + step);
            if (step % 50 == 0) {
                run.checkLinesAddUp("step " + step);
            }
        }

        run.checkRateWindows();
        run.checkFoldIsStores();
        assertThat(run.assignments).as("assignments").isGreaterThan(STEPS / 3);
        assertThat(run.reasons.toString()).contains("concurrency key", "rate limit", "is not defined",
                "(a running task holding it allows", "moved ahead");
        assertThat(run.handoffs).as("slots handed on with their key").isPositive();
    }

    private static final class Run {

        final Random random;
        final InMemoryPoolStore store = InMemoryPoolStore.copying();
        final PoolScheduler scheduler = new PoolScheduler(POOL, store,
                new TimeRules(86_400_000, 30_000, 600_000, 300_000, 60_000, TimeRules.DEFAULT_RETENTION_MS));
        final List<JournalEntry> journal = new ArrayList<>();
        final List<AttemptAssigned> running = new ArrayList<>();
        final List<String> tasks = new ArrayList<>();
        final Map<String, Long> generations = new HashMap<>();
        /** Per rate limit: the time and units of each assignment that took some. */
        final Map<String, List<long[]>> taken = new HashMap<>();
        final StringBuilder reasons = new StringBuilder();
        Instant now = T0;
        int assignments;
        int handoffs;
        private int nextTask;

        Run(Random random) {
            this.random = random;
        }

        void apply(SpecificRecord in) {
            track(scheduler.apply(in, now));
        }

        void track(List<Decision> out) {
            for (Decision d : out) {
                if (d.journal()) {
                    journal.add(Journal.entry(POOL, now, d.event(), d.cause()));
                }
                if (d.event() instanceof AttemptAssigned a) {
                    running.add(a);
                    assignments++;
                    handoffs += d.cause() != null && d.cause().contains("freed this slot and concurrency key") ? 1 : 0;
                    for (RateLimitUse u : store.task(a.getTaskId()).getTask().getRateLimits()) {
                        taken.computeIfAbsent(u.getName(), k -> new ArrayList<>())
                                .add(new long[] {now.toEpochMilli(), u.getUnits()});
                    }
                } else if (d.event() instanceof io.cronoq.events.TaskFinished f) {
                    running.removeIf(a -> a.getTaskId().equals(f.getTaskId()) && a.getAttempt() == f.getAttempt());
                } else if (d.event() instanceof io.cronoq.events.AttemptRevoked r) {
                    running.removeIf(a -> a.getTaskId().equals(r.getTaskId()) && a.getAttempt() == r.getAttempt());
                } else if (d.event() instanceof io.cronoq.events.WorkerAccepted w) {
                    generations.put(w.getWorkerId(), w.getGeneration());
                } else if (d.event() instanceof TaskWaiting w) {
                    reasons.append(w.getReason()).append('\n');
                }
            }
        }

        void register(String id) {
            apply(new io.cronoq.events.WorkerRegistered(id, POOL, id.equals("w4") ? In.labels("gpu=a") : Map.of(),
                    2 + random.nextInt(2), null, null, null, null, now));
        }

        void randomInput() {
            int roll = random.nextInt(100);
            if (roll < 42) {
                apply(newTask());
            } else if (roll < 70 && !running.isEmpty()) {
                AttemptAssigned a = running.get(random.nextInt(running.size()));
                apply(new AttemptStarted(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), now));
                apply(new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), now,
                        null));
            } else if (roll < 78 && !running.isEmpty()) {
                AttemptAssigned a = running.get(random.nextInt(running.size()));
                apply(new AttemptFailed(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(), now,
                        "error", true));
            } else if (roll < 82 && !tasks.isEmpty()) {
                apply(In.cancel(tasks.get(random.nextInt(tasks.size()))));
            } else if (roll < 84) {
                String id = "w" + (1 + random.nextInt(4));
                apply(new WorkerLeft(id, POOL, generations.get(id), "scale-in", now));
            } else if (roll < 89) {
                String id = "w" + (1 + random.nextInt(4));
                WorkerRecord w = scheduler.worker(id);
                if (w == null || w.getState() == WorkerState.LEFT || w.getState() == WorkerState.EVICTED) {
                    register(id);
                }
            }
        }

        private TaskSubmitted newTask() {
            String id = "t" + nextTask++;
            tasks.add(id);
            TaskSubmitted task = random.nextInt(6) == 0 ? In.task(id, "gpu=a") : In.task(id);
            task.setSubmittedAt(now);
            task.setTimeoutMs(random.nextInt(8) == 0 ? 2_000L : null);
            if (random.nextInt(4) == 0) {
                task.setRetry(new RetryPolicy(3, random.nextBoolean() ? 0L : 1_000L, 5_000L, 2.0));
            }
            if (random.nextInt(8) == 0) {
                // Its deadline comes near during the run: it moves ahead in its line (a line of its own, often).
                task.setDeadline(now.plusSeconds(600 + random.nextInt(300)));
            }
            int keys = random.nextInt(3);
            List<String> names = new ArrayList<>(List.of(KEYS));
            for (int i = 0; i < keys; i++) {
                String key = names.remove(random.nextInt(names.size()));
                int max = random.nextInt(4);
                In.keyed(task, key, max == 0 ? null : max);
            }
            if (random.nextInt(3) == 0) {
                In.rated(task, List.of("r0", "r1", "r2").get(random.nextInt(3)), 1 + random.nextInt(2));
            }
            return task;
        }

        /** What attempts hold each key, by the limit each holder allows. */
        private Map<String, List<Integer>> holders() {
            Map<Integer, Integer> none = Map.of();
            Map<String, Integer> admin = store.limits() == null ? Map.of() : store.limits().getKeys();
            Map<String, List<Integer>> holders = new HashMap<>();
            for (WorkerRecord w : store.workers()) {
                if (w.getState() == WorkerState.LEFT || w.getState() == WorkerState.EVICTED) {
                    continue;
                }
                for (AttemptRef ref : w.getRunning()) {
                    for (ConcurrencyKey k : ref.getConcurrency()) {
                        holders.computeIfAbsent(k.getKey(), x -> new ArrayList<>())
                                .add(limitOf(k.getMax(), admin.get(k.getKey())));
                    }
                }
            }
            return holders;
        }

        /** The limit a task that declared {@code max} meets from the admin's limit: the smaller, else 1. */
        private static int limitOf(Integer max, Integer admin) {
            if (max == null) {
                return admin == null ? 1 : admin;
            }
            return admin == null ? max : Math.min(max, admin);
        }

        void checkKeys(String context) {
            holders().forEach((key, limits) -> {
                int smallest = limits.stream().mapToInt(Integer::intValue).min().orElseThrow();
                require(limits.size() <= smallest, "key %s is held %d times, its smallest limit is %d; %s", key,
                        limits.size(), smallest, context);
            });
        }

        void checkNoneWaitsThatCouldRun(String context) {
            List<WorkerRecord> free = new ArrayList<>();
            for (WorkerRecord w : store.workers()) {
                if (w.getState() == WorkerState.ACTIVE && w.getRunning().size() < w.getSlots()) {
                    free.add(w);
                }
            }
            if (free.isEmpty()) {
                return;
            }
            Map<String, List<Integer>> holders = holders();
            LimitsRecord limits = store.limits();
            Map<String, Integer> admin = limits == null ? Map.of() : limits.getKeys();
            for (WaitingQueue.Entry e : store.waiting().entries()) {
                TaskSubmitted t = store.task(e.taskId()).getTask();
                if (!admitted(t, holders, admin, limits)) {
                    continue;
                }
                for (WorkerRecord w : free) {
                    boolean fits = t.getLabels().entrySet().stream()
                            .allMatch(l -> l.getValue().equals(w.getLabels().get(l.getKey())));
                    require(!fits, "%s waits (%s) while its limits admit it and %s has a free slot; %s", e.taskId(),
                            store.task(e.taskId()).getWaitingReason(), w.getWorkerId(), context);
                }
            }
        }

        /** Whether every key and rate limit of the task admits it now, worked out here from the stores. */
        private boolean admitted(TaskSubmitted t, Map<String, List<Integer>> holders, Map<String, Integer> admin,
                                 LimitsRecord limits) {
            for (ConcurrencyKey k : t.getConcurrency()) {
                List<Integer> held = holders.getOrDefault(k.getKey(), List.of());
                int limit = limitOf(k.getMax(), admin.get(k.getKey()));
                for (int other : held) {
                    limit = Math.min(limit, other);
                }
                if (held.size() >= limit) {
                    return false;
                }
            }
            for (RateLimitUse u : t.getRateLimits()) {
                RateBucket b = limits == null ? null : limits.getRates().get(u.getName());
                if (b == null) {
                    return false;
                }
                double since = Math.max(0, now.toEpochMilli() - b.getAt().toEpochMilli());
                if (Math.min(b.getBurst(), b.getUnits() + b.getPerSecond() * since / 1000.0) < u.getUnits()) {
                    return false;
                }
            }
            return true;
        }

        /** The lines the policy knows hold exactly the tasks of the waiting store, each head first in its line. */
        void checkLinesAddUp(String context) {
            long inClasses = 0;
            for (ClassSnapshot c : scheduler.classes()) {
                inClasses += c.waiting();
                TaskRecord head = store.task(c.headTaskId());
                require(head != null && head.getState() == TaskState.WAITING, "class %s has head %s; %s", c.classKey(),
                        c.headTaskId(), context);
            }
            long queued = store.waiting().entries().size();
            require(inClasses == queued && scheduler.snapshot().waiting() == queued,
                    "classes hold %d, the snapshot %d, the queue %d; %s", inClasses, scheduler.snapshot().waiting(), queued,
                    context);
        }

        void checkRateWindows() {
            assertThat(taken).containsKeys("r0", "r1", "r2");
            taken.forEach((name, uses) -> {
                double perSecond = RATES.get(name)[0];
                double burst = RATES.get(name)[1];
                for (int i = 0; i < uses.size(); i++) {
                    long sum = 0;
                    for (int j = i; j < uses.size(); j++) {
                        sum += uses.get(j)[1];
                        double allowed = burst + perSecond * (uses.get(j)[0] - uses.get(i)[0]) / 1000.0;
                        require(sum <= allowed + 1e-9, "rate %s handed out %d units from %d to %d ms, above %.3f",
                                name, sum, uses.get(i)[0], uses.get(j)[0], allowed);
                    }
                }
            });
        }

        void checkFoldIsStores() {
            JournalFold fold = new JournalFold();
            fold.applyAll(journal);
            long waiting = 0;
            for (JournalFold.Task folded : fold.tasks().values()) {
                TaskRecord stored = store.task(folded.taskId());
                assertThat(folded.state()).as(folded.taskId()).isEqualTo(stored.getState());
                assertThat(folded.attempts()).as(folded.taskId()).hasSameSizeAs(stored.getAttempts());
                waiting += folded.state() == TaskState.WAITING ? 1 : 0;
            }
            for (JournalFold.Worker w : fold.workers()) {
                assertThat(w.running()).as(w.workerId()).hasSameSizeAs(scheduler.worker(w.workerId()).getRunning());
            }
            long delayed = tasks.stream().map(store::task).filter(t -> t != null && t.getState() == TaskState.WAITING
                    && t.getRank() == Ordering.NOT_IN_LINE).count();
            assertThat(waiting).isEqualTo(scheduler.snapshot().waiting() + delayed);
        }
    }

    private static void require(boolean holds, String message, Object... args) {
        if (!holds) {
            throw new AssertionError(String.format(message, args));
        }
    }
}
