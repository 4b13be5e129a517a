package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random fleets (two racks, GPU and plain workers that come, go and are evicted), gangs of 1 to 6
 * (spread, pack, one rack; some needing GPUs) and a stream of single tasks, with failures and
 * cancels, and a tenant guaranteed slots it takes back (from a gang, whole), for thousands of steps per run. After every step: no gang holds slots in part (a
 * member holds a slot only while every member holds one or succeeded), no worker is beyond its
 * slots, no two reservations share a profile, a reservation holds no more than its gang needs, a
 * task backfilled on a held slot has a lease that ends before its gang is sure of its slots and before
 * the reservation ends, and no
 * more attempts hold the concurrency key some tasks and gangs name than its max.
 * Then the single tasks stop: every gang the fleet could hold is placed within the reservation
 * wait and the time its slots take to free.
 */
@Execution(ExecutionMode.CONCURRENT)
class GangPropertyTest {

    private static final int STEPS = 3_000;
    /** A concurrency key some single tasks and some gangs' members name, and its max. */
    private static final String KEY = "licence";
    private static final int KEY_MAX = 6;
    private static final TimeRules RULES = new TimeRules(120_000, 30_000, 600_000, 300_000, 60_000, 600_000)
            .withGangReservation(20_000, 60_000);

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(longs = {1, 7, 42, 2026, 31337})
    void noGangHoldsSlotsInPartAndEveryGangThatFitsIsPlaced(long variant) {
        Run run = new Run(variant);
        for (int step = 0; step < STEPS; step++) {
            run.step(true);
            run.check("variant " + variant + " step " + step);
        }
        // Nothing new comes and nothing fails; what runs finishes; every gang the fleet can hold gets its turn.
        for (int step = 0; step < 800; step++) {
            run.step(false);
            run.check("variant " + variant + " draining step " + step);
        }
        for (String gang : run.gangs.keySet()) {
            TaskRecord first = run.store.task(gang + "-0");
            if (first != null && first.getState() == TaskState.WAITING) {
                assertThat(first.getWaitingReason()).as("variant %d: gang %s still waits", variant, gang)
                        .contains("could never hold it all");
            }
        }
        assertThat(run.placedGangs).as("gangs placed").isGreaterThan(20);
        assertThat(run.reserved).as("steps with a reservation").isPositive();
        RERUN.addAndGet(run.rerun);
        PREEMPTED.addAndGet(run.preemptedGangs);
        BACKFILLED.addAndGet(run.backfilled);
        LIMITED.addAndGet(run.limitedGangs);
    }

    /** What the runs together must have met: each rule above was tested, not only stated. */
    private static final AtomicInteger RERUN = new AtomicInteger();
    private static final AtomicInteger PREEMPTED = new AtomicInteger();
    private static final AtomicInteger BACKFILLED = new AtomicInteger();
    private static final AtomicInteger LIMITED = new AtomicInteger();

    @AfterAll
    static void theRunsMetEveryCase() {
        assertThat(RERUN.get()).as("gangs that ran again whole").isPositive();
        assertThat(PREEMPTED.get()).as("gangs taken back whole for a guarantee").isPositive();
        assertThat(BACKFILLED.get()).as("single tasks backfilled on held slots").isPositive();
        assertThat(LIMITED.get()).as("gangs held back by their concurrency key").isPositive();
    }

    private static final class Run {
        final Random random;
        final InMemoryPoolStore store = InMemoryPoolStore.copying();
        final PoolScheduler scheduler = new PoolScheduler(POOL, store, RULES);
        final Map<String, Integer> gangs = new LinkedHashMap<>();
        final Map<String, AttemptAssigned> running = new LinkedHashMap<>();
        final Map<String, Long> generations = new HashMap<>();
        Instant now = T0;
        int nextTask;
        int placedGangs;
        int reserved;
        int rerun;
        int preemptedGangs;
        int backfilled;
        int limitedGangs;

        Run(long variant) {
            this.random = new Random(variant);
            // Tenant a is guaranteed 4 slots and takes them back after 5 s: from gangs too, whole.
            apply(In.share("a", null, In.quota(4, null)));
            apply(In.preemption(true, 5_000L));
            for (int w = 0; w < 6; w++) {
                register("w" + w);
            }
        }

        /** One step; {@code arriving} false: no new task or gang, no cancel or failure, only what runs ends. */
        void step(boolean arriving) {
            now = now.plusMillis(random.nextInt(1_500));
            int dice = arriving ? random.nextInt(100) : 99;
            if (dice < 3) {
                register("w" + random.nextInt(9));
            } else if (dice < 4) {
                String id = "w" + random.nextInt(9);
                apply(new io.cronoq.events.WorkerLeft(id, POOL, generations.get(id), "scale down", now));
            } else if (dice < 10) {
                gang();
            } else if (dice < 45) {
                TaskSubmitted t = In.task("t" + nextTask++);
                // Most have a lease (what backfill needs to know they end in time); some run unbounded.
                t.setTimeoutMs(random.nextInt(3) == 0 ? null : 5_000L + random.nextInt(120_000));
                if (random.nextInt(10) == 0) {
                    In.keyed(t, KEY, KEY_MAX);
                }
                t.setSubmittedAt(now);
                t.setTenant(random.nextInt(3) == 0 ? "a" : "b");
                apply(t);
            } else if (dice < 46 && !gangs.isEmpty()) {
                List<String> ids = new ArrayList<>(gangs.keySet());
                apply(new io.cronoq.events.TaskCancelRequested(ids.get(random.nextInt(ids.size())) + "-0", POOL,
                        "tests", "not needed", now));
            } else if (!running.isEmpty()) {
                List<String> keys = new ArrayList<>(running.keySet());
                AttemptAssigned a = running.remove(keys.get(random.nextInt(keys.size())));
                if (arriving && random.nextInt(8) == 0) {
                    apply(new AttemptFailed(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(), a.getGeneration(),
                            now, "boom", true));
                } else {
                    apply(new AttemptSucceeded(a.getTaskId(), POOL, a.getAttempt(), a.getWorkerId(),
                            a.getGeneration(), now, null));
                }
            }
            if (random.nextInt(4) == 0) {
                for (Map.Entry<String, Long> e : generations.entrySet()) {
                    if (!e.getKey().equals("w8")) { // w8 falls silent: it is evicted
                        apply(new WorkerHeartbeat(e.getKey(), POOL, e.getValue(), List.of(), now));
                    }
                }
                observe(scheduler.tick(now));
            }
        }

        void register(String id) {
            Map<String, String> labels = new HashMap<>();
            labels.put("rack", id.hashCode() % 2 == 0 ? "a" : "b");
            if (id.equals("w1") || id.equals("w4") || id.equals("w7")) {
                labels.put("gpu", "a100");
            }
            apply(new WorkerRegistered(id, POOL, labels, 1 + random.nextInt(3), null, null, null, "host-" + id, now));
        }

        void gang() {
            String id = "g" + gangs.size();
            int size = 1 + random.nextInt(6);
            boolean gpu = random.nextInt(4) == 0;
            List<TaskSubmitted> members = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                TaskSubmitted m = gpu ? In.task(id + "-" + rank, "gpu=a100") : In.task(id + "-" + rank);
                m.setTimeoutMs(null);
                m.setSubmittedAt(now);
                m.setTenant("b");
                members.add(m);
            }
            if (random.nextInt(5) == 0) {
                members.forEach(m -> In.keyed(m, KEY, KEY_MAX));
            }
            GangPlacement layout = GangPlacement.values()[random.nextInt(3)];
            gangs.put(id, size);
            apply(new GangSubmitted(id, POOL, layout, random.nextInt(4) == 0 ? "rack" : null, members, "tests", now));
        }

        void apply(SpecificRecord input) {
            observe(scheduler.apply(input, now));
        }

        void observe(List<Decision> out) {
            Set<String> placed = new HashSet<>();
            for (Decision d : out) {
                if (d.event() instanceof AttemptAssigned a) {
                    running.put(a.getTaskId() + "#" + a.getAttempt(), a);
                    if (d.cause() != null && d.cause().contains("backfilled on a slot held for gang")) {
                        backfilled++;
                        Instant sure = Instant.parse(d.cause().replaceAll(".*be sure of all its slots \\(([^,]+),.*", "$1"));
                        Instant ends = Instant.parse(d.cause().replaceAll(".*its reservation ends \\(([^)]+)\\).*", "$1"));
                        sure = sure.isBefore(ends) ? sure : ends;
                        Long timeout = store.task(a.getTaskId()).getTask().getTimeoutMs();
                        if (timeout == null || !a.getAssignedAt().plusMillis(timeout).isBefore(sure)) {
                            throw new AssertionError(a.getTaskId() + " backfilled with a lease (" + timeout + " ms from "
                                    + a.getAssignedAt() + ") not before its gang is sure of its slots or its reservation ends: " + sure);
                        }
                    }
                    if (a.getGang() != null && placed.add(a.getGang().getGangId())) {
                        placedGangs++;
                        rerun += a.getAttempt() > 1 ? 1 : 0;
                    }
                } else if (d.event() instanceof io.cronoq.events.AttemptRevoked r && r.getReason().contains("taken back whole")) {
                    if (r.getTaskId().endsWith("-0")) {
                        preemptedGangs++;
                    }
                } else if (d.event() instanceof io.cronoq.events.AttemptRevoked r) {
                    running.remove(r.getTaskId() + "#" + r.getAttempt());
                } else if (d.event() instanceof io.cronoq.events.TaskFinished f) {
                    running.remove(f.getTaskId() + "#" + f.getAttempt());
                } else if (d.event() instanceof io.cronoq.events.TaskWaiting w && w.getReason().contains("concurrency key " + KEY)
                        && w.getReason().startsWith("gang ")) {
                    limitedGangs++;
                } else if (d.event() instanceof io.cronoq.events.WorkerAccepted w) {
                    generations.put(w.getWorkerId(), w.getGeneration());
                } else if (d.event() instanceof io.cronoq.events.WorkerRemoved w) {
                    generations.remove(w.getWorkerId());
                }
            }
        }

        void check(String context) {
            for (Map.Entry<String, Integer> g : gangs.entrySet()) {
                List<TaskState> states = new ArrayList<>();
                for (int rank = 0; rank < g.getValue(); rank++) {
                    TaskRecord member = store.task(g.getKey() + "-" + rank);
                    states.add(member == null ? null : member.getState());
                }
                boolean holds = states.contains(TaskState.ASSIGNED) || states.contains(TaskState.RUNNING);
                if (holds && !states.stream().allMatch(s -> s == TaskState.ASSIGNED || s == TaskState.RUNNING
                        || s == TaskState.SUCCEEDED)) {
                    throw new AssertionError(context + ": gang " + g.getKey() + " holds slots in part: " + states);
                }
            }
            Set<Profile> reservedProfiles = new HashSet<>();
            boolean anyReservation = false;
            for (GangPlacer.WaitingGang g : scheduler.waitingGangs()) {
                if (g.reservation == null) {
                    continue;
                }
                anyReservation = true;
                int need = 0;
                for (Map.Entry<Profile, Integer> e : g.reservation.target.entrySet()) {
                    if (!reservedProfiles.add(e.getKey())) {
                        throw new AssertionError(context + ": two reservations on " + e.getKey());
                    }
                    if (e.getKey().held > e.getValue()) {
                        throw new AssertionError(context + ": gang " + g.id + " holds more than it needs on " + e.getKey());
                    }
                    need += e.getValue();
                }
                if (need != g.size) {
                    throw new AssertionError(context + ": gang " + g.id + " reserves for " + need + " of " + g.size);
                }
            }
            reserved += anyReservation ? 1 : 0;
            long holders = running.values().stream().filter(a -> {
                TaskRecord t = store.task(a.getTaskId());
                return t != null && !t.getTask().getConcurrency().isEmpty()
                        && (t.getState() == TaskState.ASSIGNED || t.getState() == TaskState.RUNNING)
                        && t.getAttempts().size() == a.getAttempt();
            }).count();
            if (holders > KEY_MAX) {
                throw new AssertionError(context + ": " + holders + " attempts hold key " + KEY + ", whose max is " + KEY_MAX);
            }
            for (Map.Entry<String, Long> e : generations.entrySet()) {
                var w = scheduler.worker(e.getKey());
                if (w != null && w.getRunning().size() > w.getSlots()) {
                    throw new AssertionError(context + ": worker " + e.getKey() + " beyond its slots");
                }
            }
        }
    }
}
