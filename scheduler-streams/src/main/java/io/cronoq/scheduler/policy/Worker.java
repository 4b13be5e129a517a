package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerState;
import java.util.List;

/**
 * One worker registration as the scheduler holds it in memory: its record of state (which the
 * scheduler writes through the store after every change) and the profile it counts in. The running
 * list of the record is the worker's busy count; only {@link Profile} changes it, because the
 * profile's worker order depends on it.
 */
final class Worker {

    /** Its record of state, which the scheduler writes through the store after every change. */
    final WorkerRecord record;
    private Profile profile;

    Worker(WorkerRecord record) {
        this.record = record;
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

    /**
     * Left while it held attempts and still waits for their reports ({@link Leaves}): live (DRAINING,
     * so it takes nothing new) with the time its leave was heard.
     */
    boolean leaving() {
        return live() && record.getLeftAt() != null;
    }

    List<AttemptRef> running() {
        return record.getRunning();
    }

    /** The profile it counts in, or {@code null} once it left. */
    Profile profile() {
        return profile;
    }

    // ---- changed only by Profile / Groups ----

    void profile(Profile profile) {
        this.profile = profile;
    }

    void state(WorkerState state) {
        record.setState(state);
    }

    void addRunning(AttemptRef ref, long sequence) {
        record.getRunning().add(ref);
        record.setLastAssignedSequence(sequence);
    }

    /** Removes a running attempt; its reference, or {@code null} when it held no such attempt. */
    AttemptRef removeRunning(String taskId, int attempt) {
        List<AttemptRef> running = record.getRunning();
        for (int i = 0; i < running.size(); i++) {
            AttemptRef ref = running.get(i);
            if (ref.getAttempt() == attempt && ref.getTaskId().equals(taskId)) {
                return running.remove(i);
            }
        }
        return null;
    }

    void clearRunning() {
        record.getRunning().clear();
    }
}
