package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerState;
import java.util.List;

/**
 * One worker registration as the scheduler holds it in memory: its record of state (which the
 * scheduler writes through the store after every change) and the group it counts in. The running
 * list of the record is the worker's busy count; only {@link Group} changes it, because the
 * group's worker order depends on it.
 */
final class Worker {

    private final WorkerRecord record;
    private Group group;

    Worker(WorkerRecord record) {
        this.record = record;
    }

    WorkerRecord record() {
        return record;
    }

    String id() {
        return record.getWorkerId();
    }

    long generation() {
        return record.getGeneration();
    }

    int slots() {
        return record.getSlots();
    }

    int busy() {
        return record.getRunning().size();
    }

    long lastAssignedSequence() {
        return record.getLastAssignedSequence();
    }

    WorkerState state() {
        return record.getState();
    }

    boolean active() {
        return record.getState() == WorkerState.ACTIVE;
    }

    /** Registered and not gone: ACTIVE or DRAINING. */
    boolean live() {
        WorkerState s = record.getState();
        return s == WorkerState.ACTIVE || s == WorkerState.DRAINING;
    }

    List<AttemptRef> running() {
        return record.getRunning();
    }

    /** The group it counts in, or {@code null} once it left. */
    Group group() {
        return group;
    }

    // ---- changed only by Group / Groups ----

    void group(Group group) {
        this.group = group;
    }

    void state(WorkerState state) {
        record.setState(state);
    }

    void addRunning(AttemptRef ref, long sequence) {
        record.getRunning().add(ref);
        record.setLastAssignedSequence(sequence);
    }

    boolean removeRunning(String taskId, int attempt) {
        List<AttemptRef> running = record.getRunning();
        for (int i = 0; i < running.size(); i++) {
            AttemptRef ref = running.get(i);
            if (ref.getAttempt() == attempt && ref.getTaskId().equals(taskId)) {
                running.remove(i);
                return true;
            }
        }
        return false;
    }

    void clearRunning() {
        record.getRunning().clear();
    }
}
