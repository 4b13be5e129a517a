package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.cancel;
import static io.cronoq.scheduler.fixtures.Events.drain;
import static io.cronoq.scheduler.fixtures.Events.failed;
import static io.cronoq.scheduler.fixtures.Events.leave;
import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.started;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static io.cronoq.scheduler.fixtures.Events.succeeded;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.fixtures.Events;
import io.cronoq.scheduler.replay.JournalFold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The journal is complete: folding it from the start yields the same pools, tasks and workers as the stores. */
class JournalFoldTopologyTest {

    private static final List<String> POOLS = List.of("cpu", "gpu");
    private SchedulerDriver scheduler = new SchedulerDriver();
    private final List<JournalEntry> journal = new ArrayList<>();
    private final Map<String, AttemptAssigned> running = new HashMap<>();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void foldingTheJournalYieldsTheStoresState() {
        Random random = new Random(42);
        int nextTask = 0;
        for (int step = 0; step < 1500; step++) {
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            int dice = random.nextInt(100);
            if (dice < 8) {
                String id = "w" + random.nextInt(6);
                Map<String, String> labels = random.nextBoolean() ? Map.of() : Map.of("gpu", "a100");
                scheduler.send(register(id, pool, labels, 1 + random.nextInt(3)));
            } else if (dice < 10) {
                scheduler.send(leave("w" + random.nextInt(6), pool));
            } else if (dice < 11) {
                scheduler.send(drain("w" + random.nextInt(6), pool));
            } else if (dice < 50) {
                Map<String, String> labels = random.nextInt(4) == 0 ? Map.of("gpu", "a100") : Map.of();
                scheduler.send(submit("t" + nextTask++, pool, labels));
            } else if (dice < 53 && nextTask > 0) {
                scheduler.send(cancel("t" + random.nextInt(nextTask), pool));
            } else if (!running.isEmpty()) {
                List<String> keys = new ArrayList<>(running.keySet());
                keys.sort(null);
                AttemptAssigned a = running.remove(keys.get(random.nextInt(keys.size())));
                scheduler.send(started(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration()));
                if (random.nextInt(5) == 0) {
                    scheduler.send(failed(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(),
                            a.getGeneration(), "boom", random.nextBoolean()));
                } else {
                    scheduler.send(succeeded(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(),
                            a.getGeneration()));
                }
            }
            drainOutputs();
        }

        assertFoldEqualsStores(300);
        // Some leaves found attempts held, and waited for their reports (no clock moves here: no grace ends).
        assertThat(journal.stream().map(e -> String.valueOf(e.getCause())))
                .anyMatch(c -> c.contains("takes nothing new"))
                .anyMatch(c -> c.contains("its last attempt ended within its leave grace"));
    }

    /**
     * The same with time at work: the wall clock moves 0–3 s per step, workers heartbeat now and
     * then (some too rarely: they are evicted), tasks have priorities, deadlines, delayed and fixed
     * starts, timeouts (some attempts are never reported: their leases expire) and retry backoffs,
     * and finished tasks are forgotten 10 minutes after they finished. The fold reads no clock, yet
     * it ends where the stores do.
     */
    @Test
    void foldingTheJournalReproducesTheStoresWithTimeAtWork() {
        restartWithClock(Map.of(
                SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "20000",
                SchedulerConfig.RESERVATION_LEAD_MS.name(), "5000",
                SchedulerConfig.DEADLINE_LEAD_MS.name(), "30000",
                SchedulerConfig.PRIORITY_STEP_MS.name(), "10000",
                SchedulerConfig.TASK_RETENTION_MS.name(), "600000"));
        Random random = new Random(2026);
        Instant now = Events.T0;
        Map<String, Long> generations = new HashMap<>();
        int nextTask = 0;
        for (int step = 0; step < 1500; step++) {
            now = passTime(random, 3_000, now, generations);
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            int dice = random.nextInt(100);
            if (dice < 6) {
                String id = "w" + random.nextInt(6);
                Map<String, String> labels = random.nextBoolean() ? Map.of() : Map.of("gpu", "a100");
                scheduler.send(at(register(id, pool, labels, 1 + random.nextInt(3)), now));
            } else if (dice < 7) {
                scheduler.send(at(leave("w" + random.nextInt(6), pool), now));
            } else if (dice < 8) {
                scheduler.send(at(drain("w" + random.nextInt(6), pool), now));
            } else if (dice < 30) {
                String id = "w" + random.nextInt(6);
                Long generation = generations.get(pool + "/" + id);
                if (generation != null && random.nextInt(6) > 0) { // w5 heartbeats too rarely
                    if (!id.equals("w5") || random.nextInt(10) == 0) {
                        scheduler.send(io.cronoq.events.WorkerHeartbeat.newBuilder().setWorkerId(id).setPool(pool)
                                .setGeneration(generation).setRunning(List.of()).setSentAt(now).build());
                    }
                }
            } else if (dice < 60) {
                Map<String, String> labels = random.nextInt(4) == 0 ? Map.of("gpu", "a100") : Map.of();
                TaskSubmitted task = submit("t" + nextTask++, pool, labels);
                task.setSubmittedAt(now);
                withTime(task, now, random);
                scheduler.send(task);
            } else if (dice < 63 && nextTask > 0) {
                TaskCancelRequested c = cancel("t" + random.nextInt(nextTask), pool);
                c.setRequestedAt(now);
                scheduler.send(c);
            } else if (!running.isEmpty() && random.nextInt(8) > 0) { // else an attempt stays unreported
                reportOne(random, now, 4, true);
            }
            drainOutputs(generations);
        }

        assertFoldEqualsStores(300);
        // The walk reached every kind of time decision.
        List<String> causes = journal.stream().map(e -> String.valueOf(e.getCause())).toList();
        List<String> reasons = journal.stream().map(e -> e.getEvent() instanceof TaskWaiting w ? w.getReason()
                : e.getEvent() instanceof WorkerRemoved r ? r.getReason()
                : e.getEvent() instanceof AttemptRevoked r ? r.getReason() : "").toList();
        assertThat(String.join("\n", reasons)).contains("evicted: no heartbeat", "lease expired", "not before",
                "fixed start at", "moved ahead of the tasks without a near deadline");
        assertThat(String.join("\n", causes)).contains("after a backoff of", "started on time", "late: ",
                "kept 10m after it finished");
    }

    /**
     * Gangs among single tasks, with time at work: gangs of 2 to 4 (spread, pack, one rack) are
     * submitted among single tasks, members fail, workers leave and are evicted, gangs reserve slots
     * and their reservations run out. After every step no gang holds slots in part (each member of a
     * gang that holds a slot holds one or has succeeded); at the end the fold of the journal is the
     * stores' state.
     */
    @Test
    void foldingTheJournalReproducesTheStoresWithGangs() {
        restartWithClock(Map.of(
                SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "20000",
                SchedulerConfig.GANG_RESERVE_AFTER_MS.name(), "8000",
                SchedulerConfig.GANG_RESERVATION_MS.name(), "30000",
                SchedulerConfig.TASK_RETENTION_MS.name(), "600000"));
        Random random = new Random(7);
        Instant now = Events.T0;
        Map<String, Long> generations = new HashMap<>();
        Map<String, Integer> gangs = new HashMap<>();
        int nextTask = 0;
        for (int step = 0; step < 1500; step++) {
            now = passTime(random, 2_000, now, generations);
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            int dice = random.nextInt(100);
            if (dice < 6) {
                String id = "w" + random.nextInt(7);
                Map<String, String> labels = Map.of("rack", random.nextBoolean() ? "a" : "b");
                scheduler.send(at(register(id, pool, labels, 1 + random.nextInt(3)), now));
            } else if (dice < 7) {
                scheduler.send(at(leave("w" + random.nextInt(7), pool), now));
            } else if (dice < 30) {
                String id = "w" + random.nextInt(7);
                Long generation = generations.get(pool + "/" + id);
                if (generation != null && (!id.equals("w6") || random.nextInt(10) == 0)) { // w6 heartbeats too rarely
                    scheduler.send(io.cronoq.events.WorkerHeartbeat.newBuilder().setWorkerId(id).setPool(pool)
                            .setGeneration(generation).setRunning(List.of()).setSentAt(now).build());
                }
            } else if (dice < 38) {
                String gangId = "g" + gangs.size();
                int size = 2 + random.nextInt(3);
                gangs.put(gangId, size);
                scheduler.send(gang(gangId, pool, size, now, random));
            } else if (dice < 60) {
                TaskSubmitted task = submit("t" + nextTask++, pool, Map.of());
                task.setSubmittedAt(now);
                task.setTimeoutMs(null);
                scheduler.send(task);
            } else if (dice < 62 && !gangs.isEmpty()) {
                TaskCancelRequested c = cancel("g" + random.nextInt(gangs.size()) + "-0", pool);
                c.setRequestedAt(now);
                scheduler.send(c);
            } else if (!running.isEmpty()) {
                reportOne(random, now, 6, false);
            }
            drainOutputs(generations);
            assertNoGangHoldsSlotsInPart(gangs);
        }

        assertFoldEqualsStores(300);
        String words = journal.stream().map(e -> e.getCause() + " " + (e.getEvent() instanceof TaskWaiting w
                ? w.getReason() : e.getEvent() instanceof AttemptRevoked r ? r.getReason() : "")).collect(Collectors.joining("\n"));
        assertThat(words).contains("members assigned at once", "reserving since", "member g", " failed",
                "the gang runs again as a whole", "cancelling a member cancels its gang");
    }

    /**
     * Pipelines among single tasks, with time at work: half the tasks name one to three earlier tasks of either
     * pool as parents (to succeed, to fail, or to end; some run anyway when a parent ends otherwise), attempts fail
     * and are retried, tasks are cancelled, and finished tasks are forgotten 10 minutes after they ended. After the
     * walk every child is where its parents put it (blocked while a parent has not ended, released only when every
     * parent ended as it asked or it runs anyway), and the fold of the journal is the stores' state.
     */
    @Test
    void foldingTheJournalReproducesTheStoresWithDependencies() {
        restartWithClock(Map.of(
                SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "86400000", // no eviction: no heartbeats here
                SchedulerConfig.TASK_RETENTION_MS.name(), "600000"));
        Random random = new Random(34);
        Instant now = Events.T0;
        Map<String, Long> generations = new HashMap<>();
        List<String> ids = new ArrayList<>();
        Map<String, String> poolOf = new HashMap<>();
        Map<io.cronoq.events.TaskState, Integer> childrenSeen = new java.util.EnumMap<>(io.cronoq.events.TaskState.class);
        for (String pool : POOLS) {
            scheduler.send(at(register("w-" + pool, pool, Map.of(), 3), now));
        }
        for (int step = 0; step < 1500; step++) {
            now = passTime(random, 2_000, now, generations);
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            int dice = random.nextInt(100);
            if (dice < 45) {
                String id = "t" + ids.size();
                TaskSubmitted task = submit(id, pool, Map.of());
                task.setSubmittedAt(now);
                if (random.nextInt(3) == 0) {
                    task.setRetry(new io.cronoq.events.RetryPolicy(1 + random.nextInt(3), 500L, 2_000L, 2.0));
                }
                if (!ids.isEmpty() && random.nextBoolean()) {
                    java.util.LinkedHashSet<String> parents = new java.util.LinkedHashSet<>();
                    int n = 1 + random.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        // mostly recent tasks, so some parents are still running
                        parents.add(ids.get(Math.max(0, ids.size() - 1 - random.nextInt(Math.min(ids.size(), 12)))));
                    }
                    List<io.cronoq.events.Dependency> after = new ArrayList<>();
                    for (String parent : parents) {
                        int c = random.nextInt(10);
                        io.cronoq.events.ParentCondition when = c < 7 ? io.cronoq.events.ParentCondition.SUCCEEDED
                                : c < 8 ? io.cronoq.events.ParentCondition.FAILED : io.cronoq.events.ParentCondition.FINISHED;
                        after.add(new io.cronoq.events.Dependency(parent,
                                poolOf.get(parent).equals(pool) && random.nextBoolean() ? null : poolOf.get(parent), when));
                    }
                    task.setAfter(after);
                    task.setRunIfParentUnmet(random.nextInt(5) == 0);
                }
                ids.add(id);
                poolOf.put(id, pool);
                scheduler.send(task);
            } else if (dice < 49 && !ids.isEmpty()) {
                String id = ids.get(random.nextInt(ids.size()));
                TaskCancelRequested c = cancel(id, poolOf.get(id));
                c.setRequestedAt(now);
                scheduler.send(c);
            } else if (!running.isEmpty()) {
                reportOne(random, now, 4, true);
            }
            drainOutputs(generations);
            if (step % 100 == 99) {
                childrenAreWhereTheirParentsPutThem().forEach((state, n) -> childrenSeen.merge(state, n, Integer::sum));
            }
        }

        assertFoldEqualsStores(100);
        childrenSeen.putAll(childrenAreWhereTheirParentsPutThem());
        // The walk reached every outcome of a child, and children were blocked at the checks along the way.
        assertThat(childrenSeen).containsKeys(io.cronoq.events.TaskState.BLOCKED, io.cronoq.events.TaskState.SUCCEEDED,
                io.cronoq.events.TaskState.FAILED, io.cronoq.events.TaskState.CANCELLED);
        assertThat(journal).extracting(e -> e.getEvent().getClass().getSimpleName())
                .as("parents and children told each other across the pools").contains("ParentWatched", "ParentEnded");
        List<String> reasons = journal.stream().map(e -> e.getEvent() instanceof io.cronoq.events.TaskCancelled c
                ? String.valueOf(c.getReason()) : "").toList();
        assertThat(String.join("\n", reasons)).contains("failed (attempt", "was cancelled because parent");
    }

    /**
     * Checks every task with parents against its parents' records: released (waiting in line, or with attempts)
     * only when every parent ended as it asked or it runs anyway; blocked only while a parent has not ended.
     * Returns how many children are in each state.
     */
    private Map<io.cronoq.events.TaskState, Integer> childrenAreWhereTheirParentsPutThem() {
        Map<String, TaskRecord> tasks = new HashMap<>();
        scheduler.<TaskRecord>storeContents(StoreNames.TASKS).forEach(kv -> tasks.put(kv.value.getTask().getTaskId(), kv.value));
        Map<io.cronoq.events.TaskState, Integer> children = new java.util.EnumMap<>(io.cronoq.events.TaskState.class);
        for (TaskRecord child : tasks.values()) {
            List<io.cronoq.events.Dependency> after = child.getTask().getAfter();
            if (after.isEmpty()) {
                continue;
            }
            children.merge(child.getState(), 1, Integer::sum);
            String id = child.getTask().getTaskId();
            boolean released = !child.getAttempts().isEmpty() || child.getState() == io.cronoq.events.TaskState.WAITING;
            for (io.cronoq.events.Dependency d : after) {
                TaskRecord parent = tasks.get(d.getTask());
                if (parent == null) {
                    continue; // forgotten: it ended 10 minutes ago or more
                }
                boolean ended = io.cronoq.scheduler.policy.time.Retention.isFinished(parent.getState());
                if (released) {
                    assertThat(ended).as(id + " released before parent " + d.getTask() + " ended").isTrue();
                    boolean met = switch (d.getWhen()) {
                        case SUCCEEDED -> parent.getState() == io.cronoq.events.TaskState.SUCCEEDED;
                        case FAILED -> parent.getState() == io.cronoq.events.TaskState.FAILED;
                        case FINISHED -> true;
                    };
                    assertThat(met || child.getTask().getRunIfParentUnmet())
                            .as(id + " released though parent " + d.getTask() + " " + parent.getState()).isTrue();
                }
            }
            if (child.getState() == io.cronoq.events.TaskState.BLOCKED) {
                assertThat(after).as(id + " blocked with every parent ended").anyMatch(d -> tasks.get(d.getTask()) != null
                        && !io.cronoq.scheduler.policy.time.Retention.isFinished(tasks.get(d.getTask()).getState()));
            }
        }
        return children;
    }

    /** The topology again, with these settings and its wall clock at {@link Events#T0}, moved only by the test. */
    private void restartWithClock(Map<String, String> settings) {
        scheduler.close();
        scheduler = new SchedulerDriver(settings, Events.T0);
    }

    /** Up to {@code maxMillis} pass on the wall clock (what ticks decide is collected); the new time. */
    private Instant passTime(Random random, int maxMillis, Instant now, Map<String, Long> generations) {
        long millis = random.nextInt(maxMillis);
        scheduler.advance(Duration.ofMillis(millis));
        drainOutputs(generations);
        return now.plusMillis(millis);
    }

    /**
     * A running attempt picked at random starts and ends at {@code now}: one in {@code failOneIn} fails (retryable
     * at random when {@code randomlyRetryable}, else retryable), the others succeed.
     */
    private void reportOne(Random random, Instant now, int failOneIn, boolean randomlyRetryable) {
        List<String> keys = new ArrayList<>(running.keySet());
        keys.sort(null);
        AttemptAssigned a = running.remove(keys.get(random.nextInt(keys.size())));
        scheduler.send(at(started(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration()), now));
        if (random.nextInt(failOneIn) == 0) {
            scheduler.send(at(failed(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(),
                    a.getGeneration(), "boom", !randomlyRetryable || random.nextBoolean()), now));
        } else {
            scheduler.send(at(succeeded(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(),
                    a.getGeneration()), now));
        }
    }

    private static io.cronoq.events.GangSubmitted gang(String id, String pool, int size, Instant now, Random random) {
        List<TaskSubmitted> members = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            TaskSubmitted member = submit(id + "-" + rank, pool, Map.of());
            member.setSubmittedAt(now);
            member.setTimeoutMs(null);
            members.add(member);
        }
        io.cronoq.events.GangPlacement layout = io.cronoq.events.GangPlacement.values()[random.nextInt(3)];
        return new io.cronoq.events.GangSubmitted(id, pool, layout, random.nextInt(3) == 0 ? "rack" : null, members,
                "tests", now);
    }

    /** Every gang holds slots wholly or not at all: a member holding a slot means each holds one or succeeded. */
    private void assertNoGangHoldsSlotsInPart(Map<String, Integer> gangs) {
        Map<String, TaskRecord> tasks = new HashMap<>();
        scheduler.<TaskRecord>storeContents(StoreNames.TASKS).forEach(kv -> tasks.put(kv.value.getTask().getTaskId(), kv.value));
        gangs.forEach((id, size) -> {
            List<io.cronoq.events.TaskState> states = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                TaskRecord member = tasks.get(id + "-" + rank);
                states.add(member == null ? null : member.getState());
            }
            boolean holds = states.stream().anyMatch(s -> s == io.cronoq.events.TaskState.ASSIGNED
                    || s == io.cronoq.events.TaskState.RUNNING);
            if (holds) {
                assertThat(states).as("gang " + id + " holds slots wholly").allMatch(s -> s == io.cronoq.events.TaskState.ASSIGNED
                        || s == io.cronoq.events.TaskState.RUNNING || s == io.cronoq.events.TaskState.SUCCEEDED);
            }
        });
    }

    /**
     * A pool's policy may come before its fleet: a sharing policy or a limit for a pool no worker or task named yet
     * makes the pool, in the stores (the punctuator ticks it, the queries show it) and in the fold alike; a policy
     * the scheduler refuses makes none.
     */
    @Test
    void aPolicyBeforeAnyWorkerOrTaskMakesThePoolInTheStoresAndInTheFold() {
        scheduler.send(SharingPolicySet.newBuilder().setPool("gpu").setTenant("prod").setWeight(3.0)
                .setSetBy("admin").setSetAt(Events.T0).build());
        scheduler.send(LimitSet.newBuilder().setPool("llm").setKind(LimitKind.RATE_LIMIT).setName("openai")
                .setPerSecond(10.0).setSetBy("admin").setSetAt(Events.T0).build());
        scheduler.send(SharingPolicySet.newBuilder().setPool("refused").setTenant("prod").setWeight(0.0)
                .setSetBy("admin").setSetAt(Events.T0).build());
        scheduler.send(register("w1", "cpu", Map.of(), 1));
        drainOutputs();

        List<String> stored = scheduler.storeContents(StoreNames.POOLS).stream().map(kv -> kv.key).sorted().toList();
        assertThat(stored).as("the pools the stores hold").containsExactly("cpu", "gpu", "llm");
        JournalFold fold = new JournalFold();
        fold.applyAll(journal);
        assertThat(fold.pools()).as("the pools the journal folds to").containsExactlyElementsOf(stored);
        assertThat(scheduler.storeContents(StoreNames.SHARING)).extracting(kv -> kv.key).containsExactly("gpu");
        assertThat(scheduler.storeContents(StoreNames.LIMITS)).extracting(kv -> kv.key).containsExactly("llm");
    }

    private static void withTime(TaskSubmitted task, Instant now, Random random) {
        switch (random.nextInt(8)) {
            case 0 -> task.setPriority(io.cronoq.events.Priority.values()[random.nextInt(4)]);
            case 1 -> task.setDeadline(now.plusSeconds(random.nextInt(90)));
            case 2 -> task.setNotBefore(now.plusSeconds(1 + random.nextInt(20)));
            case 3 -> task.setStartAt(now.plusSeconds(random.nextInt(40)));
            default -> { }
        }
        if (random.nextInt(3) == 0) {
            task.setTimeoutMs(5_000L + random.nextInt(20_000));
        }
        if (random.nextInt(3) == 0) {
            task.setRetry(new io.cronoq.events.RetryPolicy(1 + random.nextInt(4), 1_000L + random.nextInt(3_000),
                    10_000L, 2.0));
        }
    }

    private static <T extends org.apache.avro.specific.SpecificRecord> T at(T event, Instant now) {
        for (String field : List.of("registeredAt", "at", "requestedAt")) {
            var f = event.getSchema().getField(field);
            if (f != null) {
                event.put(f.pos(), now);
            }
        }
        return event;
    }

    private void assertFoldEqualsStores(int minTasks) {
        JournalFold fold = new JournalFold();
        fold.applyAll(journal);

        List<KeyValue<String, TaskRecord>> tasks = scheduler.storeContents(StoreNames.TASKS);
        assertThat(tasks).hasSizeGreaterThan(minTasks);
        assertThat(fold.tasks()).hasSameSizeAs(tasks);
        for (KeyValue<String, TaskRecord> kv : tasks) {
            TaskRecord stored = kv.value;
            JournalFold.Task folded = fold.tasks().get(kv.key);
            assertThat(folded).as(kv.key).isNotNull();
            assertThat(folded.state()).as(kv.key + " state").isEqualTo(stored.getState());
            assertThat(folded.attempts()).as(kv.key + " attempts").extracting(
                            JournalFold.Attempt::attempt, JournalFold.Attempt::workerId, JournalFold.Attempt::generation)
                    .containsExactlyElementsOf(stored.getAttempts().stream()
                            .map(a -> org.assertj.core.groups.Tuple.tuple(a.getAttempt(), a.getWorkerId(), a.getGeneration()))
                            .toList());
        }

        assertThat(fold.pools()).as("pools").containsExactlyElementsOf(scheduler.storeContents(StoreNames.POOLS)
                .stream().map(kv -> kv.key).sorted().toList());

        List<KeyValue<String, WorkerRecord>> workers = scheduler.storeContents(StoreNames.WORKERS);
        Map<String, JournalFold.Worker> foldedWorkers = fold.workers().stream()
                .collect(Collectors.toMap(w -> StoreNames.workerKey(w.pool(), w.workerId()), w -> w));
        assertThat(foldedWorkers.keySet()).containsExactlyInAnyOrderElementsOf(workers.stream().map(kv -> kv.key).toList());
        for (KeyValue<String, WorkerRecord> kv : workers) {
            WorkerRecord stored = kv.value;
            JournalFold.Worker folded = foldedWorkers.get(kv.key);
            assertThat(folded.state()).as(kv.key + " state").isEqualTo(stored.getState());
            assertThat(folded.generation()).as(kv.key + " generation").isEqualTo(stored.getGeneration());
            assertThat(folded.labels()).as(kv.key + " labels").isEqualTo(stored.getLabels());
            assertThat(folded.slots()).as(kv.key + " slots").isEqualTo(stored.getSlots());
            assertThat(folded.running()).as(kv.key + " running").containsExactlyInAnyOrderElementsOf(
                    stored.getRunning().stream().map(JournalFoldTopologyTest::name).toList());
        }
    }

    private static String name(AttemptRef ref) {
        return ref.getTaskId() + "#" + ref.getAttempt();
    }

    private void drainOutputs() {
        drainOutputs(new HashMap<>());
    }

    /** Collects the journal and the assignments; keeps each worker's generation as the journal tells it. */
    private void drainOutputs(Map<String, Long> generations) {
        for (JournalEntry e : scheduler.journal()) {
            journal.add(e);
            if (e.getEvent() instanceof io.cronoq.events.WorkerAccepted a) {
                generations.put(e.getPool() + "/" + a.getWorkerId(), a.getGeneration());
            }
        }
        scheduler.assignments().forEach(kv -> {
            if (kv.value instanceof AttemptAssigned a) {
                running.put(a.getTaskId() + "#" + a.getAttempt(), a);
            }
        });
    }
}
