package io.cronoq.agent;

import io.cronoq.agent.CronoqWorker.State;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a {@link WorkerCore} is in its life, finer than the {@link State} it shows: whether a drain waits for the
 * registration's answer, and whether a drained worker's leave is on its way. Every allowed transition is listed
 * here; {@link #to} refuses any other.
 */
enum Lifecycle {
    /** Built, not started. */
    CREATED(State.CREATED),
    /** Registration sent; waiting for its answer. */
    REGISTERING(State.REGISTERING),
    /** Registration sent, and asked to drain meanwhile: drains once the answer comes. */
    REGISTERING_THEN_DRAIN(State.REGISTERING),
    /** Registered: takes and runs attempts. */
    ACTIVE(State.ACTIVE),
    /** Takes nothing new; finishes what runs. */
    DRAINING(State.DRAINING),
    /** Drained: its leave goes out once its last reports are written. */
    LEAVING(State.DRAINING),
    LEFT(State.LEFT),
    STOPPED(State.STOPPED),
    FENCED(State.FENCED),
    REJECTED(State.REJECTED);

    private final State shown;

    Lifecycle(State shown) {
        this.shown = shown;
    }

    /** The state a worker shows for this one. */
    State shown() {
        return shown;
    }

    boolean terminal() {
        return shown.terminal();
    }

    /** Waiting for the answer to its latest registration: everything read until then is from before it. */
    boolean awaitingAnswer() {
        return shown == State.REGISTERING;
    }

    /** Registered and answered: it runs (and heartbeats) the attempts of its generation. */
    boolean serving() {
        return shown == State.ACTIVE || shown == State.DRAINING;
    }

    /** The states this one may go to. */
    private Set<Lifecycle> next() {
        return switch (this) {
            case CREATED -> EnumSet.of(REGISTERING, LEFT, STOPPED);
            case REGISTERING -> EnumSet.of(REGISTERING, REGISTERING_THEN_DRAIN, ACTIVE, LEFT, STOPPED, REJECTED);
            case REGISTERING_THEN_DRAIN -> EnumSet.of(REGISTERING_THEN_DRAIN, ACTIVE, LEFT, STOPPED, REJECTED);
            case ACTIVE -> EnumSet.of(REGISTERING, DRAINING, STOPPED, FENCED);
            case DRAINING -> EnumSet.of(LEAVING, LEFT, STOPPED, FENCED);
            case LEAVING -> EnumSet.of(LEFT, STOPPED, FENCED);
            case LEFT, STOPPED, FENCED, REJECTED -> EnumSet.noneOf(Lifecycle.class);
        };
    }

    /**
     * The next state.
     *
     * @throws IllegalStateException when this state may not go there
     */
    Lifecycle to(Lifecycle target) {
        if (!next().contains(target)) {
            throw new IllegalStateException("a worker that is " + this + " cannot become " + target);
        }
        return target;
    }
}
