package io.cronoq.scheduler.policy;

import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.ResourceProfile;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.WorkerState;
import java.util.LinkedHashSet;
import java.util.TreeSet;

/**
 * The workers of one {@link Group} that published the same resources ({@link ResourceProfile}):
 * the unit placement links to requirement classes, since its workers serve exactly the same ones.
 * Keeps its capacity (slots of its ACTIVE workers), busy slots (attempts on its ACTIVE workers), the
 * attempts still finishing on its DRAINING workers, and its ACTIVE workers that have a free slot in
 * {@link Ordering#WORKERS} order, so picking the worker for an attempt is a lookup, not a scan.
 */
final class Profile {

    final Group group;
    final ResourceProfile resources;
    /** The requirement classes this profile can serve; maintained by {@link Groups}. */
    final LinkedHashSet<Need> needs = new LinkedHashSet<>();
    /** Whether {@link Groups} has listed this profile as free in its classes. */
    boolean listedFree;
    boolean removed;

    private final TreeSet<Worker> ready = new TreeSet<>(Ordering.WORKERS);
    /** Its ACTIVE workers, busy or not: where a gang's reservation reads when the running attempts must end. */
    private final LinkedHashSet<Worker> actives = new LinkedHashSet<>();
    /** Counts the changes of its workers and their attempts: a figure derived from them holds for one value. */
    long changes;
    // The figures below are read directly inside the package; only this class's add, remove,
    // assign and release change them.
    int activeWorkers;
    int drainingWorkers;
    /** Slots of its ACTIVE workers. */
    int capacity;
    /** Attempts on its ACTIVE workers. */
    int busy;
    /** Attempts still finishing on its DRAINING workers. */
    int drainingBusy;
    /** Free slots held for a gang's reservation ({@link GangPlacer}): single tasks see them as taken. */
    int held;
    /** The gang whose reservation may hold slots here, or {@code null}. */
    String reservedFor;

    Profile(Group group, ResourceProfile resources) {
        this.group = group;
        this.resources = resources;
    }

    LabelSet labels() {
        return group.labels();
    }

    /** Slots a single task may take now: neither busy nor held for a gang. */
    int free() {
        return capacity - busy - held;
    }

    /** Slots of its ACTIVE workers that no attempt holds, held for a gang or not. */
    int idle() {
        return capacity - busy;
    }

    boolean isEmpty() {
        return activeWorkers + drainingWorkers == 0;
    }

    /** The ACTIVE worker with a free slot that should get the next attempt, or {@code null}. */
    Worker pick() {
        return ready.isEmpty() ? null : ready.first();
    }

    /** How many of its ACTIVE workers have a free slot. */
    int readyCount() {
        return ready.size();
    }

    /** Its ACTIVE workers that have a free slot, in the order attempts go to them (a copy: assigning changes it). */
    java.util.List<Worker> readyWorkers() {
        return new java.util.ArrayList<>(ready);
    }

    /** Its ACTIVE workers, busy or not (read-only). */
    java.util.Set<Worker> actives() {
        return java.util.Collections.unmodifiableSet(actives);
    }

    /** Counts a live worker in, in its current state. */
    void add(Worker w) {
        changes++;
        if (w.state() == WorkerState.ACTIVE) {
            actives.add(w);
            activeWorkers++;
            capacity += w.slots();
            busy += w.busy();
            if (w.busy() < w.slots()) {
                ready.add(w);
            }
        } else {
            drainingWorkers++;
            drainingBusy += w.busy();
        }
    }

    /** Counts a worker out, in its current state (call before changing its state). */
    void remove(Worker w) {
        changes++;
        if (w.state() == WorkerState.ACTIVE) {
            actives.remove(w);
            ready.remove(w);
            activeWorkers--;
            capacity -= w.slots();
            busy -= w.busy();
        } else {
            drainingWorkers--;
            drainingBusy -= w.busy();
        }
    }

    /** Gives one slot of an ACTIVE worker of this profile to an attempt. */
    void assign(Worker w, AttemptRef ref, long sequence) {
        // The worker's position in `ready` depends on its busy count and sequence: out, change, in.
        changes++;
        ready.remove(w);
        w.addRunning(ref, sequence);
        busy++;
        if (w.busy() < w.slots()) {
            ready.add(w);
        }
    }

    /** Frees the slot an attempt held; the attempt's reference, or {@code null} when the worker did not hold it. */
    AttemptRef release(Worker w, String taskId, int attempt) {
        changes++;
        boolean active = w.state() == WorkerState.ACTIVE;
        if (active) {
            ready.remove(w);
        }
        AttemptRef held = w.removeRunning(taskId, attempt);
        if (held != null) {
            if (active) {
                busy--;
            } else {
                drainingBusy--;
            }
        }
        if (active && w.busy() < w.slots()) {
            ready.add(w);
        }
        return held;
    }

    @Override
    public String toString() {
        return "Profile[" + labels() + " " + resources.key() + " capacity=" + capacity + " busy=" + busy + "]";
    }
}
