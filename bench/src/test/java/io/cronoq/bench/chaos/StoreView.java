package io.cronoq.bench.chaos;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.query.ReadOnlyStores;
import io.cronoq.scheduler.replay.JournalFold;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The tasks and workers as the stores of a running scheduler hold them (every partition, by
 * interactive queries) and as a fold of the journal tells them, in one comparable shape:
 * task → state and attempts (number, worker, generation, outcome); worker → generation, state, running.
 */
record StoreView(Map<String, String> tasks, Map<String, String> workers) {

    /** What the stores of every partition of this instance hold. */
    static StoreView ofStores(KafkaStreams streams, int partitions) {
        Map<String, String> tasks = new TreeMap<>();
        Map<String, String> workers = new TreeMap<>();
        for (int p = 0; p < partitions; p++) {
            ReadOnlyStores stores = ReadOnlyStores.partition(streams, p);
            try (var it = stores.tasks().all()) {
                it.forEachRemaining(kv -> tasks.put(kv.key, describe(kv.value)));
            }
            try (var it = stores.workers().all()) {
                it.forEachRemaining(kv -> workers.put(kv.value.getPool() + "/" + kv.value.getWorkerId(), describe(kv.value)));
            }
        }
        return new StoreView(tasks, workers);
    }

    /** What folding the journal gives. */
    static StoreView ofFold(JournalFold fold) {
        Map<String, String> tasks = new TreeMap<>();
        fold.tasks().forEach((id, t) -> tasks.put(id, t.state() + " " + t.attempts().stream()
                .map(a -> a.attempt() + ":" + a.workerId() + "@" + a.generation() + ":" + a.outcome()).toList()));
        Map<String, String> workers = new TreeMap<>();
        for (JournalFold.Worker w : fold.workers()) {
            workers.put(w.pool() + "/" + w.workerId(), "gen " + w.generation() + " " + w.state() + " running "
                    + new TreeSet<>(w.running()));
        }
        return new StoreView(tasks, workers);
    }

    private static String describe(TaskRecord t) {
        List<String> attempts = t.getAttempts().stream().map(StoreView::describe).toList();
        return t.getState() + " " + attempts;
    }

    private static String describe(AttemptRecord a) {
        return a.getAttempt() + ":" + a.getWorkerId() + "@" + a.getGeneration() + ":" + a.getOutcome();
    }

    private static String describe(WorkerRecord w) {
        TreeSet<String> running = new TreeSet<>();
        w.getRunning().forEach(r -> running.add(r.getTaskId() + "#" + r.getAttempt()));
        return "gen " + w.getGeneration() + " " + w.getState() + " running " + running;
    }
}
