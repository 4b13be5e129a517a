package io.cronoq.agent;

import io.cronoq.agent.CronoqWorker.State;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.auth.RegistrationSignature;
import io.cronoq.events.WorkerResources;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's protocol with the scheduler, without Kafka: it registers, learns its generation, runs the attempts
 * assigned to its current generation on the executor, reports them, heartbeats, drains and obeys fencing. Events
 * arrive from one reading thread ({@link #onEvent}); attempts end on executor threads; lifecycle calls come from
 * any thread. All state changes happen under one lock; handlers never run under it.
 *
 * <p>Generations: every registration is answered by {@code RegistrationAccepted} carrying the registration's own
 * timestamp, which is how the worker tells the answer to its latest registration from answers to earlier ones (an
 * earlier run of the same id). Until that answer arrives every assignment read is from an earlier registration and
 * is skipped; afterwards only assignments of the current generation run. This is what makes a restart neither run
 * a finished attempt again nor lose one: the scheduler re-queues what the old generation held as new attempts.
 *
 * <p>Fixed starts: an attempt assigned with a {@code startAt} in the future takes its slot (a thread of the executor,
 * and a place in the heartbeat's running attempts) at once, and starts — {@code AttemptStarted}, then the handler —
 * at {@code startAt} by the injected clock, not before. Revoking, fencing or stopping it meanwhile ends the wait: it
 * never starts, and is reported as any aborted attempt is.
 *
 * <p>Start reports: each attempt's {@code AttemptStarted} is held back for the settings' start report delay on the
 * given timers, and is not sent at all when the attempt ends (or is aborted) within it; see {@link AttemptRun}. The
 * attempt counts as running, in the heartbeats too, from the moment it is assigned, as before.
 *
 * <p>Its life is one {@link Lifecycle}, changed only through the transitions listed there; the attempts it holds
 * are one {@link HeldAttempts}, guarded by the same lock, and its reports the broker has not acknowledged yet one
 * {@link ReportsInFlight}.
 */
final class WorkerCore implements AttemptRun.Host {

    private static final Logger log = LoggerFactory.getLogger(WorkerCore.class);

    private final WorkerSettings settings;
    private final TaskHandler handler;
    private final Executor executor;
    private final EventSink sink;
    /** Where held start reports wait. */
    private final ScheduledExecutorService timers;
    private final Clock clock;
    private final WorkerResources resources;

    private final Object lock = new Object();
    private Lifecycle state = Lifecycle.CREATED;
    private long generation;
    private Map<String, String> group = Map.of();
    private long lastRegisteredAt = -1;
    private final ReportsInFlight reports = new ReportsInFlight();
    private final HeldAttempts running = new HeldAttempts();
    private final CompletableFuture<State> activation = new CompletableFuture<>();
    private final CompletableFuture<State> termination = new CompletableFuture<>();
    private volatile String endReason;

    /** @param timers where the attempts' start reports wait for the start report delay; its tasks only publish */
    WorkerCore(WorkerSettings settings, TaskHandler handler, Executor executor, EventSink sink,
               ScheduledExecutorService timers, Clock clock, WorkerResources resources) {
        this.settings = settings;
        this.handler = handler;
        this.executor = executor;
        this.sink = sink;
        this.timers = timers;
        this.clock = clock;
        this.resources = resources;
    }

    // ==== lifecycle ===============================================================================

    /** Publishes a registration; its answer sets the generation. Called once reading is positioned. */
    void register() {
        synchronized (lock) {
            if (terminal()) {
                return;
            }
            long at = Math.max(clock.millis(), lastRegisteredAt + 1);
            lastRegisteredAt = at;
            become(state == Lifecycle.REGISTERING_THEN_DRAIN ? state : Lifecycle.REGISTERING);
            log.info("Worker {} registers in pool {} with labels {} and {} slot(s)", settings.id(), settings.pool(),
                    settings.labels(), settings.slots());
            WorkerRegistered registration = new WorkerRegistered(settings.id(), settings.pool(),
                    new HashMap<>(settings.labels()), settings.slots(), resources, null, null, settings.address(),
                    Instant.ofEpochMilli(at));
            WorkerCredential credential = settings.credential();
            sink.publish(credential == null ? registration
                    : RegistrationSignature.signed(registration, credential.name(), credential.secret()));
        }
    }

    /**
     * Takes nothing new, lets what runs finish, then reports that it left ({@code WorkerDraining}, then
     * {@code WorkerLeft}). The future completes when the worker has left.
     */
    CompletableFuture<State> drain() {
        synchronized (lock) {
            switch (state) {
                case CREATED -> terminate(Lifecycle.LEFT, "drained before it started");
                case REGISTERING, REGISTERING_THEN_DRAIN -> {
                    if (running.isEmpty()) {
                        // The scheduler reads the leave after the registration it follows, so nothing stays behind.
                        sink.publish(new WorkerLeft(settings.id(), settings.pool(), null,
                                "drained before its registration was answered", now()));
                        terminate(Lifecycle.LEFT, "drained before its registration was answered");
                    } else {
                        become(Lifecycle.REGISTERING_THEN_DRAIN);
                    }
                }
                case ACTIVE -> {
                    become(Lifecycle.DRAINING);
                    log.info("Worker {} generation {} drains: it takes nothing new and finishes {} running attempt(s)",
                            settings.id(), generation, running.size());
                    sink.publish(new WorkerDraining(settings.id(), settings.pool(), generation, now()));
                    finishDrainIfIdle();
                }
                default -> {
                    // Draining (or leaving) already, or finished: nothing more to do.
                }
            }
            return termination;
        }
    }

    /**
     * Stops at once: every running attempt is cancelled (its thread interrupted) and reported as failed and
     * retryable, then the worker reports that it left.
     */
    void stopNow(String reason) {
        synchronized (lock) {
            if (terminal()) {
                return;
            }
            boolean known = !state.awaitingAnswer() && generation > 0;
            boolean registered = state != Lifecycle.CREATED;
            if (!running.isEmpty()) {
                log.warn("Worker {} stops at once ({}); reporting {} running attempt(s) as failed and retryable",
                        settings.id(), reason, running.size());
            }
            running.abortAll("the worker stopped: " + reason,
                    "the worker stopped before the attempt finished (" + reason + ")");
            if (registered) {
                sink.publish(new WorkerLeft(settings.id(), settings.pool(), known ? generation : null,
                        "stopped: " + reason, now()));
            }
            terminate(Lifecycle.STOPPED, reason);
        }
    }

    /** Stops without a word to the scheduler, as a crash would: attempts are cancelled and not reported. */
    void halt(String reason) {
        synchronized (lock) {
            if (terminal()) {
                return;
            }
            running.abortAll("the worker halted: " + reason, null);
            terminate(Lifecycle.STOPPED, reason);
        }
    }

    /** Sends a heartbeat under the current generation with the attempts it runs, when it has a generation. */
    void heartbeat() {
        synchronized (lock) {
            if (!state.serving() || generation <= 0) {
                return;
            }
            sink.publish(new WorkerHeartbeat(settings.id(), settings.pool(), generation, running.refs(generation),
                    now()));
        }
    }

    // ==== events from the scheduler ================================================================

    /** Handles one record of the worker's own key, in partition order. */
    void onEvent(AssignmentEvent envelope) {
        Object event = envelope.getEvent();
        if (state().terminal()) {
            log.debug("Worker {} is {}; it ignores {}", settings.id(), state(), event.getClass().getSimpleName());
            return;
        }
        if (event instanceof AttemptAssigned a) {
            onAssigned(a);
        } else if (event instanceof AttemptRevoked r) {
            onRevoked(r);
        } else if (event instanceof WorkerFenced f) {
            onFenced(f);
        } else if (event instanceof RegistrationAccepted a) {
            onAccepted(a);
        } else if (event instanceof RegistrationRejected r) {
            onRejected(r);
        } else {
            log.warn("Worker {} ignores an assignment event it does not know: {}", settings.id(), event);
        }
    }

    private void onAccepted(RegistrationAccepted a) {
        synchronized (lock) {
            if (a.getAt().toEpochMilli() != lastRegisteredAt || a.getGeneration() <= generation) {
                log.debug("Worker {} skips the answer to an earlier registration (generation {})", settings.id(),
                        a.getGeneration());
                return;
            }
            generation = a.getGeneration();
            group = Collections.unmodifiableMap(new LinkedHashMap<>(a.getGroup()));
            running.abortWhere(x -> x.generation() < generation, "generation " + generation + " replaced it",
                    "was reassigned (stale claim)");
            if (terminal()) {
                return;
            }
            log.info("Worker {} is generation {} in pool {}, group {}, {} slot(s)", settings.id(), generation,
                    settings.pool(), group, a.getSlots());
            boolean drainNow = state == Lifecycle.REGISTERING_THEN_DRAIN;
            if (state.awaitingAnswer()) {
                become(Lifecycle.ACTIVE);
            }
            if (drainNow) {
                drain();
            }
            activation.complete(state.shown());
        }
    }

    private void onRejected(RegistrationRejected r) {
        synchronized (lock) {
            if (!state.awaitingAnswer() || r.getAt().toEpochMilli() < lastRegisteredAt || terminal()) {
                log.debug("Worker {} skips the rejection of an earlier registration", settings.id());
                return;
            }
            RegistrationRejectedException rejection = new RegistrationRejectedException(settings.id(),
                    String.valueOf(r.getCode()), r.getReason());
            log.error("Worker {} stops: {}", settings.id(), rejection.getMessage());
            running.abortAll("registration rejected", null);
            activation.completeExceptionally(rejection);
            terminate(Lifecycle.REJECTED, rejection.getMessage());
        }
    }

    private void onFenced(WorkerFenced f) {
        synchronized (lock) {
            long stale = f.getStaleGeneration();
            if (f.getTaskId() != null) {
                AttemptId id = new AttemptId(f.getTaskId(), f.getAttempt() == null ? -1 : f.getAttempt());
                AttemptRun a = running.get(id);
                if (a != null && a.generation() <= stale) {
                    log.warn("Attempt {} of task {} was reassigned (stale claim); aborting the local copy: {}",
                            id.attempt(), id.taskId(), f.getReason());
                    a.abort("fenced: " + f.getReason(), null);
                }
                return;
            }
            running.abortWhere(a -> a.generation() <= stale, "generation " + stale + " was fenced: " + f.getReason(),
                    "was reassigned (stale claim)");
            if (stale != generation || state.awaitingAnswer() || terminal()) {
                return; // about an earlier generation, or a registration is already on its way
            }
            if (f.getCurrentGeneration() == null) {
                if (state == Lifecycle.ACTIVE) {
                    log.warn("Worker {} generation {} was fenced ({}); registering again", settings.id(), generation,
                            f.getReason());
                    register();
                } else if (state.shown() == State.DRAINING) {
                    log.warn("Worker {} generation {} was fenced while draining ({}); it has left", settings.id(),
                            generation, f.getReason());
                    terminate(Lifecycle.LEFT, "fenced while draining");
                }
            } else {
                fencedByAnother(f.getCurrentGeneration(), f.getReason());
            }
        }
    }

    private void onAssigned(AttemptAssigned a) {
        AttemptRun attempt;
        synchronized (lock) {
            AttemptId id = new AttemptId(a.getTaskId(), a.getAttempt());
            if (state.awaitingAnswer()) {
                log.info("Worker {} skips attempt {} (generation {}): it was assigned before this registration",
                        settings.id(), id, a.getGeneration());
                return;
            }
            if (a.getGeneration() < generation) {
                log.info("Worker {} skips attempt {}: it was assigned to generation {}, this is generation {}",
                        settings.id(), id, a.getGeneration(), generation);
                return;
            }
            if (a.getGeneration() > generation) {
                fencedByAnother(a.getGeneration(), "attempt " + id + " was assigned to generation "
                        + a.getGeneration());
                return;
            }
            if (!state.serving()) {
                log.info("Worker {} is {}; attempt {} is not run (the scheduler re-queues it)", settings.id(),
                        state.shown(), id);
                return;
            }
            if (running.known(id)) {
                log.debug("Worker {} skips a repeated assignment of attempt {}", settings.id(), id);
                return;
            }
            attempt = new AttemptRun(a, settings, handler, clock, timers, this);
            running.add(attempt);
        }
        try {
            executor.execute(attempt);
        } catch (RejectedExecutionException e) {
            log.warn("The executor refused attempt {} of task {}", attempt.id().attempt(), attempt.id().taskId(), e);
            attempt.abort("the executor refused it", "the worker's executor refused the attempt: " + e.getMessage());
        }
    }

    private void onRevoked(AttemptRevoked r) {
        synchronized (lock) {
            if (!state.awaitingAnswer() && generation > 0 && r.getGeneration() > generation) {
                fencedByAnother(r.getGeneration(), "attempt " + r.getTaskId() + "#" + r.getAttempt()
                        + " was revoked from generation " + r.getGeneration());
                return;
            }
            AttemptRun a = running.get(new AttemptId(r.getTaskId(), r.getAttempt()));
            if (a != null && a.generation() <= r.getGeneration()) {
                log.info("Attempt {} of task {} was revoked ({}); aborting it", r.getAttempt(), r.getTaskId(),
                        r.getReason());
                a.abort("revoked: " + r.getReason(), null);
            }
        }
    }

    /** A newer generation of this worker id exists that this process did not register: two workers share an id. */
    private void fencedByAnother(long newer, String evidence) {
        running.abortWhere(x -> true, "worker id " + settings.id() + " is now generation " + newer,
                "was reassigned (stale claim)");
        log.error("Worker {} generation {} is fenced: {}, but this process did not register it. Another worker "
                + "uses the id {}; this one stops taking work (give each worker its own --id)", settings.id(),
                generation, evidence, settings.id());
        terminate(Lifecycle.FENCED, "another worker registered the id " + settings.id() + " as generation " + newer);
    }

    // ==== attempts ================================================================================

    @Override
    public void ended(AttemptRun a, boolean viaAbort) {
        synchronized (lock) {
            running.ended(a);
            if (!viaAbort) {
                finishDrainIfIdle();
            }
        }
    }

    /**
     * A drained worker leaves once its last reports are written, and its {@code WorkerLeft} is stamped
     * after them: the scheduler reads completions and worker events from different topics, in timestamp
     * order, so a leave that overtook the last success would have that attempt lost and run again.
     * Waits at most {@value ReportsInFlight#WAIT_SECONDS} s for the broker.
     */
    private void finishDrainIfIdle() {
        if (state != Lifecycle.DRAINING || !running.isEmpty()) {
            return;
        }
        become(Lifecycle.LEAVING);
        long leftGeneration = generation;
        reports.answered().whenComplete((ok, error) -> {
            synchronized (lock) {
                if (terminal()) {
                    return;
                }
                // Strictly after every report's timestamp: each was acknowledged before now.
                sink.publish(new WorkerLeft(settings.id(), settings.pool(), leftGeneration, "drained",
                        now().plusMillis(1)));
                log.info("Worker {} generation {} drained and left pool {}", settings.id(), leftGeneration,
                        settings.pool());
                terminate(Lifecycle.LEFT, "drained");
            }
        });
    }

    /** Publishes a report about an attempt, keeping it in flight until the broker has it. */
    @Override
    public void report(SpecificRecord event) {
        reports.track(sink.publish(event));
    }

    private void become(Lifecycle next) {
        state = state.to(next);
    }

    private void terminate(Lifecycle end, String reason) {
        become(end);
        endReason = reason;
        activation.complete(end.shown());
        termination.complete(end.shown());
    }

    private boolean terminal() {
        return state.terminal();
    }

    private Instant now() {
        return clock.instant();
    }

    // ==== reads ===================================================================================

    State state() {
        synchronized (lock) {
            return state.shown();
        }
    }

    long generation() {
        synchronized (lock) {
            return generation;
        }
    }

    Map<String, String> group() {
        synchronized (lock) {
            return group;
        }
    }

    List<AttemptId> running() {
        synchronized (lock) {
            return running.ids();
        }
    }

    Optional<String> endReason() {
        return Optional.ofNullable(endReason);
    }

    CompletableFuture<State> activation() {
        return activation;
    }

    CompletableFuture<State> termination() {
        return termination;
    }
}
