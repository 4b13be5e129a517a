package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a simulated journal's placements compare with the recorded ones: how many attempts were
 * placed in each, how many simulated attempts went to the same worker as recorded (same task,
 * same attempt number), and whether the two sequences of placements are identical.
 */
record Placements(int recorded, int simulated, int asRecorded, boolean identical) {

    /** One placement: which attempt of which task went to which worker. */
    record Placement(String taskId, int attempt, String workerId, long generation) {}

    static Placements compare(List<JournalEntry> recorded, List<JournalEntry> simulated) {
        List<Placement> before = of(recorded);
        List<Placement> after = of(simulated);
        Map<String, String> workerOf = new HashMap<>();
        for (Placement p : before) {
            workerOf.put(RecordedRuns.key(p.taskId(), p.attempt()), p.workerId());
        }
        int same = 0;
        for (Placement p : after) {
            if (p.workerId().equals(workerOf.get(RecordedRuns.key(p.taskId(), p.attempt())))) {
                same++;
            }
        }
        return new Placements(before.size(), after.size(), same, before.equals(after));
    }

    /** The placements of a journal, in journal order. */
    static List<Placement> of(List<JournalEntry> journal) {
        List<Placement> placements = new ArrayList<>();
        for (JournalEntry e : journal) {
            if (e.getEvent() instanceof AttemptAssigned a) {
                placements.add(new Placement(a.getTaskId(), a.getAttempt(), a.getWorkerId(), a.getGeneration()));
            }
        }
        return placements;
    }
}
