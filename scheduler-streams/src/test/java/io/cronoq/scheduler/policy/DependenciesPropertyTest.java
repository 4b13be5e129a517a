package io.cronoq.scheduler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Dependency;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.time.Retention;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.schemas.events.Journal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random graphs of up to 2,000 tasks over two pools: each task names up to four earlier tasks of either pool as
 * parents (to succeed, to fail, to end), now and then a task that does not exist yet, and some run anyway when a
 * parent ends otherwise. Attempts succeed with a result, fail for good or retryably, tasks are cancelled, and the
 * schedulers crash between inputs (new ones are loaded from the stores). After every step each child is where its
 * parents put it: blocked exactly while a parent has not ended; released only when every parent ended as asked (or
 * it runs anyway), and then with each succeeded parent's result; cancelled when one cannot (checked every tenth step,
 * as it reads every task, and at the end). At the end the fold of the journal is the stores, and every task has
 * ended.
 */
@Execution(ExecutionMode.CONCURRENT)
class DependenciesPropertyTest {

    private static final List<String> POOLS = List.of("p", "q");
    private static final int TASKS = 2_000;
    /** No eviction (the workers never heartbeat here), finished tasks kept for good. */
    private static final TimeRules RULES = new TimeRules(Long.MAX_VALUE / 4, 30_000, 600_000, 300_000, 60_000, 0);

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(longs = {1, 34, 2026})
    void everyChildStartsExactlyWhenItsParentsEndedAsItAsked(long variant) {
        Run run = new Run(variant);
        int step = 0;
        while (run.ids.size() < TASKS) {
            run.step();
            if (step++ % 10 == 0) { // every child against its parents: a read of every task, so not after each step
                run.check("variant " + variant + " step " + step);
            }
        }
        while (run.anyLive()) { // nothing new: what runs ends, retries come due, and what that releases runs too
            if (run.running.isEmpty()) {
                run.passTime();
            } else {
                run.finishOne();
            }
            if (step++ % 10 == 0) {
                run.check("variant " + variant + " draining step " + step);
            }
        }
        run.check("variant " + variant + " at the end");
        run.foldEqualsStores();
        for (String id : run.ids) {
            TaskRecord t = run.task(id);
            assertThat(Retention.isFinished(t.getState())).as("variant %d: %s ended (%s, %s)", variant, id, t.getState(),
                    t.getWaitingReason()).isTrue();
        }
        assertThat(run.released).as("children released").isGreaterThan(200);
        assertThat(run.cancelledByParent).as("children cancelled by a parent").isGreaterThan(20);
        assertThat(run.crashes).as("crashes").isGreaterThan(5);
    }

    private static final class Run {
        final Random random;
        final Map<String, InMemoryPoolStore> stores = new LinkedHashMap<>();
        final Map<String, PoolScheduler> schedulers = new LinkedHashMap<>();
        final List<String> ids = new ArrayList<>();
        final Map<String, String> poolOf = new LinkedHashMap<>();
        final Map<String, AttemptAssigned> running = new TreeMap<>();
        final Map<String, String> results = new LinkedHashMap<>();
        final Map<String, List<JournalEntry>> journal = new LinkedHashMap<>();
        final Set<String> checkedRelease = new LinkedHashSet<>();
        Instant now = In.T0;
        int released;
        int cancelledByParent;
        int crashes;

        Run(long variant) {
            random = new Random(variant);
            for (String pool : POOLS) {
                stores.put(pool, InMemoryPoolStore.copying());
                journal.put(pool, new ArrayList<>());
            }
            load();
            for (String pool : POOLS) {
                for (int w = 0; w < 3; w++) {
                    WorkerRegistered worker = In.worker(pool + "-w" + w, 2);
                    worker.setPool(pool);
                    apply(worker);
                }
            }
        }

        /** New schedulers over the stores, as after a crash between two inputs. */
        void load() {
            for (String pool : POOLS) {
                schedulers.put(pool, new PoolScheduler(pool, stores.get(pool), RULES));
            }
        }

        TaskRecord task(String id) {
            return stores.get(poolOf.get(id)).task(id);
        }

        void step() {
            now = now.plusMillis(100);
            int dice = random.nextInt(100);
            if (dice < 45) {
                submit();
            } else if (dice < 48 && !ids.isEmpty()) {
                String id = ids.get(random.nextInt(ids.size()));
                apply(new TaskCancelRequested(id, poolOf.get(id), "changed plans", "tests", now));
            } else if (dice < 50) {
                crashes++;
                load();
            } else if (!running.isEmpty()) {
                finishOne();
            }
        }

        void submit() {
            String pool = POOLS.get(random.nextInt(POOLS.size()));
            String id = "t" + ids.size();
            TaskSubmitted task = In.task(id);
            task.setPool(pool);
            task.setSubmittedAt(now);
            task.setTimeoutMs(null);
            if (random.nextInt(4) == 0) {
                task.setRetry(new RetryPolicy(2, 0L, 0L, 1.0));
            }
            if (!ids.isEmpty() && random.nextInt(10) < 7) {
                Set<String> parents = new LinkedHashSet<>();
                int n = 1 + random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    parents.add(random.nextInt(40) == 0 ? "t" + (ids.size() + 1 + random.nextInt(5)) // not yet there
                            : ids.get(Math.max(0, ids.size() - 1 - random.nextInt(Math.min(ids.size(), 30)))));
                }
                List<Dependency> after = new ArrayList<>();
                for (String parent : parents) {
                    int c = random.nextInt(10);
                    ParentCondition when = c < 7 ? ParentCondition.SUCCEEDED : c < 8 ? ParentCondition.FAILED
                            : ParentCondition.FINISHED;
                    String parentPool = poolOf.getOrDefault(parent, pool);
                    after.add(new Dependency(parent, parentPool.equals(pool) && random.nextBoolean() ? null : parentPool,
                            when));
                }
                task.setAfter(after);
                task.setRunIfParentUnmet(random.nextInt(6) == 0);
            }
            ids.add(id);
            poolOf.put(id, pool);
            apply(task);
        }

        void finishOne() {
            now = now.plusMillis(100);
            List<String> keys = new ArrayList<>(running.keySet());
            AttemptAssigned a = running.remove(keys.get(random.nextInt(keys.size())));
            int dice = random.nextInt(10);
            if (dice < 7) {
                String result = random.nextInt(3) == 0 ? null : "r-" + a.getTaskId();
                if (result != null) {
                    results.put(a.getTaskId(), result);
                }
                apply(new AttemptSucceeded(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration(),
                        now, result == null ? null : ByteBuffer.wrap(result.getBytes(StandardCharsets.UTF_8))));
            } else {
                apply(new AttemptFailed(a.getTaskId(), a.getPool(), a.getAttempt(), a.getWorkerId(), a.getGeneration(),
                        now, "boom", dice == 9));
            }
        }

        boolean anyLive() {
            return ids.stream().anyMatch(id -> !Retention.isFinished(task(id).getState()));
        }

        /** Five seconds pass: each pool ticks (retries whose backoff ended go back in line). */
        void passTime() {
            now = now.plusSeconds(5);
            for (String pool : POOLS) {
                route(pool, schedulers.get(pool).tick(now));
            }
        }

        /** Applies an input to its pool and whatever it sends the other pool, in order, journaling as the topology does. */
        void apply(SpecificRecord input) {
            String pool = (String) input.get(input.getSchema().getField("pool").pos());
            List<Decision> decisions = new ArrayList<>(schedulers.get(pool).apply(input, now));
            decisions.addAll(schedulers.get(pool).tick(now)); // a retry due now goes back in line
            route(pool, decisions);
        }

        /** Journals what a pool decided and hands what it sends another pool over, in order, until nothing is left. */
        void route(String pool, List<Decision> first) {
            Deque<Map.Entry<String, List<Decision>>> queue = new ArrayDeque<>();
            queue.add(Map.entry(pool, first));
            while (!queue.isEmpty()) {
                var next = queue.poll();
                for (Decision d : next.getValue()) {
                    if (d.pool() != null) {
                        queue.add(Map.entry(d.pool(), schedulers.get(d.pool()).apply(d.event(), now)));
                    }
                    if (d.journal()) {
                        journal.get(next.getKey()).add(Journal.entry(next.getKey(), now, null, d.event(), d.cause()));
                    }
                    if (d.event() instanceof AttemptAssigned a) {
                        running.put(a.getTaskId() + "#" + a.getAttempt(), a);
                        checkResults(a);
                    }
                    if (d.event() instanceof io.cronoq.events.AttemptRevoked r) {
                        running.remove(r.getTaskId() + "#" + r.getAttempt());
                    }
                    if (d.event() instanceof io.cronoq.events.TaskCancelled c && c.getReason() != null
                            && c.getReason().startsWith("parent ")) {
                        cancelledByParent++;
                    }
                }
            }
        }

        /** A child's assignment carries the result of each of its parents that succeeded with one. */
        void checkResults(AttemptAssigned a) {
            TaskRecord child = stores.get(a.getPool()).task(a.getTaskId());
            Map<String, String> expected = new TreeMap<>();
            for (Dependency d : child.getTask().getAfter()) {
                TaskRecord parent = poolOf.containsKey(d.getTask()) ? task(d.getTask()) : null;
                boolean known = parent != null && parent.getTask().getSubmittedAt().isBefore(child.getTask().getSubmittedAt());
                if (known && parent.getState() == TaskState.SUCCEEDED && results.containsKey(d.getTask())) {
                    expected.put(d.getTask(), results.get(d.getTask()));
                }
            }
            Map<String, String> got = new TreeMap<>();
            a.getParentResults().forEach((k, v) -> got.put(k, StandardCharsets.UTF_8.decode(v.duplicate()).toString()));
            assertThat(got).as("results handed to %s", a.getTaskId()).isEqualTo(expected);
            if (!child.getTask().getAfter().isEmpty() && checkedRelease.add(a.getTaskId())) {
                released++;
            }
        }

        void check(String where) {
            for (String id : ids) {
                TaskRecord child = task(id);
                List<Dependency> after = child.getTask().getAfter();
                if (after.isEmpty()) {
                    continue;
                }
                boolean released = !child.getAttempts().isEmpty() || child.getState() == TaskState.WAITING;
                boolean allEnded = true;
                boolean allMet = true;
                for (Dependency d : after) {
                    TaskRecord parent = poolOf.containsKey(d.getTask()) ? task(d.getTask()) : null;
                    boolean known = parent != null && parent.getTask().getSubmittedAt().isBefore(child.getTask().getSubmittedAt());
                    boolean ended = !known || Retention.isFinished(parent.getState());
                    allEnded &= ended;
                    allMet &= known && ended && Dependencies.met(d.getWhen(), parent.getState());
                }
                String what = where + ": " + id + " " + child.getState() + " (" + child.getWaitingReason() + ")";
                if (child.getState() == TaskState.BLOCKED) {
                    assertThat(allEnded).as(what + " is blocked though every parent ended").isFalse();
                }
                if (released) {
                    assertThat(allEnded && (allMet || child.getTask().getRunIfParentUnmet()))
                            .as(what + " was released before its parents ended as it asked").isTrue();
                }
                if (allEnded && !allMet && !child.getTask().getRunIfParentUnmet()) {
                    assertThat(child.getState()).as(what + " should have been cancelled by its parents")
                            .isEqualTo(TaskState.CANCELLED);
                    assertThat(released).as(what).isFalse();
                }
            }
        }

        void foldEqualsStores() {
            JournalFold fold = new JournalFold();
            for (String pool : POOLS) {
                journal.get(pool).forEach(fold::apply);
            }
            for (String id : ids) {
                TaskRecord stored = task(id);
                JournalFold.Task folded = fold.tasks().get(StoreNames.taskKey(poolOf.get(id), id));
                assertThat(folded).as(id).isNotNull();
                assertThat(folded.state()).as(id + " state").isEqualTo(stored.getState());
                assertThat(folded.attempts()).as(id + " attempts").hasSameSizeAs(stored.getAttempts());
            }
        }
    }
}
