package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.WorkerRecord;
import io.cronoq.scheduler.replay.JournalFold;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;

/**
 * Reading journal entries in the topology tests: their event types in order, the events of one
 * type, the one event of a type; the attempts they leave running; and whether they fold to what the
 * stores hold.
 */
final class JournalEntries {

    private JournalEntries() {}

    static List<String> types(List<JournalEntry> entries) {
        return entries.stream().map(e -> ((SpecificRecord) e.getEvent()).getSchema().getName()).toList();
    }

    static <T> List<T> all(List<JournalEntry> entries, Class<T> type) {
        return entries.stream().map(JournalEntry::getEvent).filter(type::isInstance).map(type::cast).toList();
    }

    static <T> T only(List<JournalEntry> entries, Class<T> type) {
        List<T> found = all(entries, type);
        assertThat(found).as("one %s in %s", type.getSimpleName(), types(entries)).hasSize(1);
        return found.get(0);
    }

    /**
     * Follows what the scheduler sent: attempts assigned are running until revoked (on their worker's
     * own key) or reported a success in {@code entries}.
     */
    static void follow(List<AttemptAssigned> running, List<KeyValue<String, SpecificRecord>> sent,
                       List<JournalEntry> entries) {
        for (KeyValue<String, SpecificRecord> kv : sent) {
            if (kv.value instanceof AttemptAssigned a) {
                running.add(a);
            } else if (kv.value instanceof AttemptRevoked r) {
                assertThat(kv.key).as("the worker is told on its own key").isEqualTo(r.getWorkerId());
                running.removeIf(a -> a.getTaskId().equals(r.getTaskId()) && a.getAttempt() == r.getAttempt());
            }
        }
        for (AttemptSucceeded s : all(entries, AttemptSucceeded.class)) {
            running.removeIf(a -> a.getTaskId().equals(s.getTaskId()) && a.getAttempt() == s.getAttempt());
        }
    }

    /** The journal folds to what the stores hold: each worker's state and running attempts, each task's state and attempts' outcomes. */
    static void assertFoldIsStores(List<JournalEntry> journal, SchedulerDriver scheduler, String pool) {
        JournalFold fold = new JournalFold();
        fold.applyAll(journal);
        for (JournalFold.Worker w : fold.workers()) {
            WorkerRecord stored = scheduler.worker(w.pool(), w.workerId());
            assertThat(w.state()).as(w.workerId()).isEqualTo(stored.getState());
            assertThat(w.running()).as(w.workerId()).hasSameSizeAs(stored.getRunning());
        }
        for (JournalFold.Task t : fold.tasks().values()) {
            var stored = scheduler.task(pool, t.taskId());
            assertThat(t.state()).as(t.taskId()).isEqualTo(stored.getState());
            assertThat(t.attempts()).extracting(JournalFold.Attempt::outcome).as(t.taskId())
                    .containsExactlyElementsOf(stored.getAttempts().stream().map(a -> a.getOutcome()).toList());
        }
    }
}
