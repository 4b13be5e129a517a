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
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.replay.JournalFold;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The journal is complete: folding it from the start yields the same tasks and workers as the stores. */
class JournalFoldTopologyTest {

    private static final List<String> POOLS = List.of("cpu", "gpu");
    private final SchedulerDriver scheduler = new SchedulerDriver();
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

        JournalFold fold = new JournalFold();
        fold.applyAll(journal);

        List<KeyValue<String, TaskRecord>> tasks = scheduler.storeContents(StoreNames.TASKS);
        assertThat(tasks).hasSizeGreaterThan(300);
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
        journal.addAll(scheduler.journal());
        scheduler.assignments().forEach(kv -> {
            if (kv.value instanceof AttemptAssigned a) {
                running.put(a.getTaskId() + "#" + a.getAttempt(), a);
            }
        });
    }
}
