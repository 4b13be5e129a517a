package io.cronoq.ops.bench;

import io.cronoq.events.WorkerRegistered;
import java.util.Collection;

/**
 * The workers of a bench phase, simulated ({@link SimulatedWorkers}) or real agents ({@link AgentFleet}):
 * they register, answer their assignments, and measure submission→assignment latency and placements
 * from the stamp in each task's payload.
 */
interface Fleet extends AutoCloseable {

    /** Registers these workers; returns once each registration is on its way (not yet answered). */
    void register(Collection<WorkerRegistered> workers);

    /** Whether every one of these workers has been accepted by the scheduler. */
    boolean accepted(Collection<String> workerIds);

    /** This worker, once registered, takes its assignments and never finishes them (it keeps its group saturated). */
    void hold(String workerId);

    /** From now on measure only tasks stamped at or after {@code fromNanos}, with fresh counters. */
    void measureFrom(long fromNanos);

    /** Submission→assignment latency of the measured tasks. */
    Latency latency();

    /** Assignments of measured tasks, by arrival. */
    Window placements();

    @Override
    void close();
}
