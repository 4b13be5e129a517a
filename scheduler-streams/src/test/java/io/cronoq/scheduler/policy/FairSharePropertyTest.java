package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.quota;
import static io.cronoq.scheduler.policy.In.share;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.tenantTask;
import static io.cronoq.scheduler.policy.In.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.scheduler.topology.StoreNames;
import io.cronoq.schemas.events.Journal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Long random runs of several backlogged tenants with weights 1 to 4 sharing one pool, attempts
 * ending in random order. Over the whole run each tenant's part of the slot-time lands within 5
 * points of its weight's part; a tenant below its guarantee that waits takes the next freed slot;
 * no slot idles while a task its tenant's max allows waits; and the journal folds to the stores.
 */
// Its variants are independent runs: they go side by side.
@Execution(ExecutionMode.CONCURRENT)
class FairSharePropertyTest {

    private static final int STEPS = 12_000;
    private static final int SLOTS_PER_WORKER = 5;
    private static final int WORKERS = 8;

    @ParameterizedTest(name = "variant {0}")
    @ValueSource(longs = {1, 7, 2026})
    void slotTimeFollowsTheWeightsAndTheRulesHoldAtEveryStep(long variant) {
        Random random = new Random(variant);
        InMemoryPoolStore store = InMemoryPoolStore.copying();
        PoolScheduler scheduler = new PoolScheduler(POOL, store);
        List<JournalEntry> journal = new ArrayList<>();
        Run run = new Run(scheduler, store, journal);

        // Four tenants with random weights; "g" is guaranteed 6 slots and comes and goes; "m" is capped at 4.
        Map<String, Double> weights = new LinkedHashMap<>();
        for (String t : List.of("t1", "t2", "t3", "t4")) {
            weights.put(t, (double) (1 + random.nextInt(4)));
            run.apply(share(t, weights.get(t)));
        }
        run.apply(share("g", null, quota(6, null)));
        run.apply(share("m", null, quota(0, 4)));
        for (int w = 1; w <= WORKERS; w++) {
            run.apply(worker("w" + w, SLOTS_PER_WORKER));
        }
        Map<String, Long> slotTime = new HashMap<>();
        int guaranteeChecks = 0;
        int idleChecks = 0;

        for (int step = 1; step <= STEPS; step++) {
            // Keep t1..t4 and m backlogged; g submits in bursts, now and then.
            for (String t : List.of("t1", "t2", "t3", "t4", "m")) {
                run.topUp(t, 6);
            }
            if (random.nextInt(200) == 0) {
                run.submit("g", 1 + random.nextInt(8));
            }
            Map<String, Integer> held = run.held();
            held.forEach((t, n) -> slotTime.merge(t, (long) n, Long::sum));

            // The next attempt to end: any running one, at random.
            AttemptAssigned ending = run.running.get(random.nextInt(run.running.size()));
            boolean gBelowGuaranteeAndWaiting = held.getOrDefault("g", 0) < 6 && run.waiting("g") > 0;
            String endingTenant = run.tenantOf(ending.getTaskId());
            List<AttemptAssigned> placed = run.finish(ending);

            if (gBelowGuaranteeAndWaiting && !"g".equals(endingTenant)) {
                guaranteeChecks++;
                assertThat(placed).as("step %d: the freed slot goes to g, below its guarantee", step).hasSize(1);
                assertThat(run.tenantOf(placed.get(0).getTaskId())).as("step %d", step).isEqualTo("g");
            }
            PoolSnapshot pool = scheduler.snapshot();
            boolean eligibleWaits = false;
            for (SharingSnapshot.TenantShare t : scheduler.sharing().tenants()) {
                boolean atMax = t.quotas().stream().anyMatch(q -> q.max() != null && q.inUse() >= q.max());
                eligibleWaits |= t.waiting() > 0 && !atMax;
            }
            if (eligibleWaits) {
                idleChecks++;
                assertThat(pool.busy()).as("step %d: no slot idles while an eligible task waits", step)
                        .isEqualTo(pool.capacity());
            }
            assertThat(run.held().getOrDefault("m", 0)).as("step %d: m within its max", step).isLessThanOrEqualTo(4);
        }

        // Slot-time of the always-backlogged, unbounded tenants t1..t4, while g and m took theirs.
        long total = weights.keySet().stream().mapToLong(t -> slotTime.getOrDefault(t, 0L)).sum();
        double weightSum = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        for (Map.Entry<String, Double> w : weights.entrySet()) {
            double part = (double) slotTime.getOrDefault(w.getKey(), 0L) / total;
            assertThat(part).as("tenant %s (weight %s): part of the slot-time", w.getKey(), w.getValue())
                    .isCloseTo(w.getValue() / weightSum, org.assertj.core.api.Assertions.within(0.05));
        }
        assertThat(guaranteeChecks).as("the guarantee rule was exercised").isGreaterThan(20);
        assertThat(idleChecks).isGreaterThan(STEPS / 2);
        run.assertFoldIsStores();
    }

    /** The run's inputs, running attempts and journal. */
    private static final class Run {
        final PoolScheduler scheduler;
        final InMemoryPoolStore store;
        final List<JournalEntry> journal;
        final List<AttemptAssigned> running = new ArrayList<>();
        final Map<String, Integer> submitted = new HashMap<>();
        final Map<String, Integer> waiting = new HashMap<>();
        Instant now = T0;

        Run(PoolScheduler scheduler, InMemoryPoolStore store, List<JournalEntry> journal) {
            this.scheduler = scheduler;
            this.store = store;
            this.journal = journal;
        }

        List<AttemptAssigned> apply(SpecificRecord in) {
            List<Decision> out = scheduler.apply(in, now);
            List<AttemptAssigned> placed = new ArrayList<>();
            for (Decision d : out) {
                if (d.journal()) {
                    journal.add(Journal.entry(POOL, now, d.event(), d.cause()));
                }
                if (d.event() instanceof AttemptAssigned a) {
                    placed.add(a);
                    running.add(a);
                    waiting.merge(tenantOf(a.getTaskId()), -1, Integer::sum);
                }
            }
            return placed;
        }

        void submit(String tenant, int count) {
            for (int i = 0; i < count; i++) {
                int n = submitted.merge(tenant, 1, Integer::sum);
                waiting.merge(tenant, 1, Integer::sum);
                apply(tenantTask(tenant + "-" + n, tenant));
            }
        }

        void topUp(String tenant, int backlog) {
            int missing = backlog - waiting(tenant);
            if (missing > 0) {
                submit(tenant, missing);
            }
        }

        int waiting(String tenant) {
            return waiting.getOrDefault(tenant, 0);
        }

        List<AttemptAssigned> finish(AttemptAssigned a) {
            running.remove(a);
            now = now.plusMillis(100);
            apply(started(a));
            return apply(succeeded(a));
        }

        String tenantOf(String taskId) {
            return store.task(taskId).getTask().getTenant();
        }

        Map<String, Integer> held() {
            Map<String, Integer> held = new HashMap<>();
            for (AttemptAssigned a : running) {
                held.merge(tenantOf(a.getTaskId()), 1, Integer::sum);
            }
            return held;
        }

        void assertFoldIsStores() {
            JournalFold fold = new JournalFold();
            fold.applyAll(journal);
            for (Map.Entry<String, JournalFold.Task> e : fold.tasks().entrySet()) {
                JournalFold.Task folded = e.getValue();
                TaskRecord stored = store.task(folded.taskId());
                assertThat(folded.state()).as(folded.taskId()).isEqualTo(stored.getState());
                assertThat(folded.attempts()).as(folded.taskId()).hasSameSizeAs(stored.getAttempts());
            }
            for (JournalFold.Worker w : fold.workers()) {
                WorkerRecord stored = scheduler.worker(w.workerId());
                assertThat(w.running()).as(w.workerId()).hasSameSizeAs(stored.getRunning());
            }
            assertThat(fold.tasks().values().stream().filter(t -> t.state() == TaskState.WAITING).count())
                    .isEqualTo(scheduler.snapshot().waiting());
            assertThat(fold.tasks()).containsKey(StoreNames.taskKey(POOL, "g-1"));
        }
    }
}
