package io.cronoq.bench.chaos;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** What the committed journal and assignments say about a run: finishes per task, attempts assigned twice, lost attempts. */
record JournalVerdict(Map<String, Integer> succeededPerTask, List<String> assignedTwice, List<String> journaledTwice,
                      List<TaskFinished> lost, List<String> keyMismatches) {

    static JournalVerdict of(List<ConsumerRecord<String, JournalEntry>> journal,
                             List<ConsumerRecord<String, AssignmentEvent>> assignments) {
        Map<String, Integer> succeeded = new TreeMap<>();
        Map<String, Integer> journaledAssigned = new HashMap<>();
        List<TaskFinished> lost = new java.util.ArrayList<>();
        for (ConsumerRecord<String, JournalEntry> r : journal) {
            Object event = r.value().getEvent();
            if (event instanceof TaskFinished f && f.getState() == TaskState.SUCCEEDED) {
                succeeded.merge(f.getTaskId(), 1, Integer::sum);
            } else if (event instanceof TaskFinished f && f.getOutcome() == AttemptOutcome.LOST) {
                lost.add(f);
            } else if (event instanceof AttemptAssigned a) {
                journaledAssigned.merge(a.getTaskId() + "#" + a.getAttempt(), 1, Integer::sum);
            }
        }
        Map<String, Integer> assigned = new HashMap<>();
        List<String> keyMismatches = new java.util.ArrayList<>();
        for (ConsumerRecord<String, AssignmentEvent> r : assignments) {
            if (r.value().getEvent() instanceof AttemptAssigned a) {
                assigned.merge(a.getTaskId() + "#" + a.getAttempt(), 1, Integer::sum);
                if (!a.getWorkerId().equals(r.key())) {
                    keyMismatches.add(a.getTaskId() + "#" + a.getAttempt() + " keyed " + r.key());
                }
            }
        }
        return new JournalVerdict(succeeded, twice(assigned), twice(journaledAssigned), lost, keyMismatches);
    }

    private static List<String> twice(Map<String, Integer> counts) {
        return counts.entrySet().stream().filter(e -> e.getValue() > 1).map(e -> e.getKey() + " x" + e.getValue())
                .sorted().toList();
    }
}
