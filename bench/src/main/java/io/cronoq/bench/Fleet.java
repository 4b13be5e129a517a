package io.cronoq.bench;

import io.cronoq.events.WorkerRegistered;
import java.util.Collection;

/**
 * The workers of a bench phase, simulated ({@link SimulatedWorkers}) or real agents ({@link AgentFleet}):
 * they register, answer their assignments, and measure submission→assignment latency and placements
 * from the stamp in each task's payload.
 */
abstract class Fleet implements AutoCloseable {

    private volatile Measurement measurement = new Measurement(Long.MIN_VALUE, null);

    /** Registers these workers; returns once each registration is on its way (not yet answered). */
    public abstract void register(Collection<WorkerRegistered> workers);

    /** Whether every one of these workers has been accepted by the scheduler. */
    public abstract boolean accepted(Collection<String> workerIds);

    /** This worker, once registered, takes its assignments and never finishes them (it keeps its group saturated). */
    public abstract void hold(String workerId);

    /**
     * From now on measure only tasks stamped at or after {@code fromNanos}, with fresh counters, and hand every
     * measured assignment's hops to {@code hops} when it is not null (a simulated fleet knows them).
     */
    public final void measureFrom(long fromNanos, Hops hops) {
        measurement = new Measurement(fromNanos, hops);
    }

    /** Submission→assignment latency of the measured tasks. */
    public final Latency latency() {
        return measurement.latency();
    }

    /** Assignments of measured tasks, by arrival. */
    public final Window placements() {
        return measurement.placements();
    }

    /** An assignment of a task stamped {@code stampNanos} reached its worker at {@code atNanos}. */
    protected final void placed(long stampNanos, long atNanos) {
        measurement.record(stampNanos, atNanos);
    }

    /** {@link #placed}, for a fleet that also knows when the assignment was appended (negative: not): see {@link Hops}. */
    protected final void placed(String taskId, long stampNanos, long appendedEpochMs, long atNanos) {
        Measurement current = measurement;
        current.record(stampNanos, atNanos);
        current.hops(taskId, stampNanos, appendedEpochMs, atNanos);
    }

    @Override
    public abstract void close();
}
