package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How a simulated journal's placements compare with the recorded ones: how many attempts were
 * placed in each, how many simulated attempts went to the same worker as recorded (same task,
 * same attempt number), whether the attempts were placed in the recorded order (whatever their
 * workers), and whether the two sequences of placements are identical (same task, attempt, worker
 * and registration of that worker, in the same order).
 */
record Placements(int recorded, int simulated, int asRecorded, boolean inRecordedOrder, boolean identical) {

    /**
     * One placement: which attempt of which task went to which worker, under which of its
     * registrations (1 for the worker's first accepted registration in the journal, 2 for the
     * next…). Not its generation: a registration a change drops bumped the generation in the
     * recording and not in the simulation, so the same registration can carry another generation there.
     */
    record Placement(String taskId, int attempt, String workerId, int registration) {}

    static Placements compare(List<JournalEntry> recorded, List<JournalEntry> simulated) {
        List<Placement> before = of(recorded);
        List<Placement> after = of(simulated);
        Map<String, String> workerOf = new HashMap<>();
        for (Placement p : before) {
            workerOf.put(Journal.attemptKey(p.taskId(), p.attempt()), p.workerId());
        }
        int same = 0;
        for (Placement p : after) {
            if (p.workerId().equals(workerOf.get(Journal.attemptKey(p.taskId(), p.attempt())))) {
                same++;
            }
        }
        return new Placements(before.size(), after.size(), same, attempts(before).equals(attempts(after)),
                before.equals(after));
    }

    /** The attempts placed, in order: task and attempt number. */
    private static List<String> attempts(List<Placement> placements) {
        List<String> attempts = new ArrayList<>(placements.size());
        placements.forEach(p -> attempts.add(Journal.attemptKey(p.taskId(), p.attempt())));
        return attempts;
    }

    /** The placements of a journal, in journal order. */
    static List<Placement> of(List<JournalEntry> journal) {
        List<Placement> placements = new ArrayList<>();
        Map<String, Integer> registrations = new HashMap<>();
        for (JournalEntry e : journal) {
            Object event = e.getEvent();
            Placement placed = switch (JournalKind.of(event)) {
                case WORKER_ACCEPTED -> {
                    registrations.merge(Journal.workerId(event), 1, Integer::sum);
                    yield null;
                }
                case ATTEMPT_ASSIGNED -> {
                    // An attempt always goes to its worker's latest registration.
                    AttemptAssigned a = (AttemptAssigned) event;
                    yield new Placement(a.getTaskId(), a.getAttempt(), a.getWorkerId(),
                            registrations.getOrDefault(a.getWorkerId(), 0));
                }
                case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT,
                        ATTEMPT_STARTED, ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, TASK_FINISHED, TASK_CANCELLED,
                        DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_REMOVED, ATTEMPT_REVOKED, WORKER_FENCED,
                        REGISTRATION_REJECTED, TASK_FORGOTTEN, SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED,
                        PARENT_WATCHED, PARENT_ENDED, TASK_BLOCKED -> null;
            };
            if (placed != null) {
                placements.add(placed);
            }
        }
        return placements;
    }
}
