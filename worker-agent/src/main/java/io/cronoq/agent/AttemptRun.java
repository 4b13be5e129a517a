package io.cronoq.agent;

import io.cronoq.schemas.rules.Rules;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptProgress;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.avro.specific.SpecificRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one assigned attempt on an executor thread: waits for its fixed start, starts it, calls the handler with its
 * {@link AttemptContext}, and reports exactly one outcome — or none once it was aborted, when the abort reported what
 * there was to report. The start report is held back for the worker's start report delay: an attempt that ends
 * within it is reported by its outcome alone, one that runs on reports its start (with the time it started) when
 * the delay ends, before anything else of it. Cancellable from any thread ({@link #abort}).
 */
final class AttemptRun implements Runnable {

    /** What an attempt needs from its worker: reports, and word that it is over. */
    interface Host {
        /** Publishes a report about the attempt, kept in flight until the broker has it. */
        void report(SpecificRecord event);

        /** The attempt is over (ended or aborted): it no longer holds a slot. */
        void ended(AttemptRun run, boolean viaAbort);
    }

    private static final Logger log = LoggerFactory.getLogger(AttemptRun.class);
    /**
     * How often an attempt waiting for its fixed start reads the clock again: the start follows the injected clock
     * (and a system clock that jumps) rather than a delay computed once.
     */
    private static final long START_CHECK_MILLIS = 100;

    private final Host host;
    private final TaskHandler handler;
    private final Clock clock;
    private final AttemptContext context;
    private final Duration startReportDelay;
    /** Where a held start report waits for its delay. */
    private final ScheduledExecutorService timers;
    /** Settled once the outcome is reported or deliberately not reported; holds the start report meanwhile. */
    private final AttemptSettlement settlement;
    private Thread thread;

    /** @param timers where a held start report waits for the settings' start report delay */
    AttemptRun(AttemptAssigned assigned, WorkerSettings settings, TaskHandler handler, Clock clock,
               ScheduledExecutorService timers, Host host) {
        this.host = host;
        this.handler = handler;
        this.clock = clock;
        this.context = new AttemptContext(assigned, settings, this::progress);
        this.startReportDelay = settings.startReportDelay();
        this.timers = timers;
        this.settlement = new AttemptSettlement(host::report);
    }

    AttemptId id() {
        return context.id();
    }

    long generation() {
        return context.generation();
    }

    @Override
    public void run() {
        boolean aborted;
        synchronized (this) {
            aborted = settlement.settled();
            if (!aborted) {
                thread = Thread.currentThread();
            }
        }
        if (aborted) {
            host.ended(this, false); // aborted while it waited for a thread; never started
            return;
        }
        try {
            if (!awaitStart() || !settlement.start(started(), startReportDelay, timers)) {
                return; // aborted before it started; never started (the abort reported what there was to report)
            }
            byte[] result = handler.handle(context);
            if (result != null && result.length > io.cronoq.schemas.rules.Rules.MAX_RESULT_BYTES) {
                // The scheduler keeps no larger result: a success carrying one would be refused and the attempt
                // would hang until its lease ran out. Fail it now, saying why, so it is not retried in vain.
                throw new TaskFailedException("the handler returned a result of " + result.length + " bytes; at most "
                        + io.cronoq.schemas.rules.Rules.MAX_RESULT_BYTES + " (64 KiB) are kept: write large outputs to "
                        + "object storage and return a reference", false);
            }
            if (settlement.settle()) {
                report(new AttemptSucceeded(taskId(), context.pool(), attempt(), context.workerId(),
                        context.generation(), now(), result == null ? null : ByteBuffer.wrap(result)));
            } else {
                log.info("Attempt {} of task {} returned after it was aborted ({}); not reported", attempt(), taskId(),
                        abortReason());
            }
        } catch (Throwable t) {
            if (settlement.settle()) {
                boolean retryable = !(t instanceof NonRetryableException)
                        && !(t instanceof TaskFailedException f && !f.retryable());
                log.info("Attempt {} of task {} failed ({}): {}", attempt(), taskId(),
                        retryable ? "retryable" : "not retryable", t.toString());
                reportFailed(error(t), retryable);
            } else {
                log.info("Attempt {} of task {} ended after it was aborted ({}): {}; not reported", attempt(),
                        taskId(), abortReason(), t.toString());
            }
            if (t instanceof Error e && !(t instanceof AssertionError)) {
                throw e;
            }
        } finally {
            synchronized (this) {
                thread = null;
                Thread.interrupted(); // an abort's interrupt must not leak into the pool thread's next attempt
            }
            host.ended(this, false);
        }
    }

    /**
     * Holds the slot (this thread) until the attempt's fixed start, if it has one in the future. Returns whether
     * it may start: false when it was aborted (revoked, fenced, stopped) meanwhile.
     */
    private boolean awaitStart() throws InterruptedException {
        Instant startAt = context.assigned().getStartAt();
        if (startAt == null || settlement.settled()) {
            return !settlement.settled();
        }
        long remaining = startAt.toEpochMilli() - clock.millis();
        if (remaining > 0) {
            log.info("Attempt {} of task {} has a fixed start at {}; it holds its slot and starts in {} ms",
                    attempt(), taskId(), startAt, remaining);
        }
        try {
            while (remaining > 0) {
                if (context.cancellation().await(Duration.ofMillis(Math.min(remaining, START_CHECK_MILLIS)))) {
                    break;
                }
                remaining = startAt.toEpochMilli() - clock.millis();
            }
        } catch (InterruptedException e) {
            if (!settlement.settled()) {
                throw e; // not an abort: the executor is shutting down
            }
        }
        if (settlement.settled()) {
            log.info("Attempt {} of task {} was aborted before its fixed start at {} ({}); it never started",
                    attempt(), taskId(), startAt, abortReason());
            return false;
        }
        return true;
    }

    /**
     * Cancels the attempt and interrupts its thread; reports it failed (retryable) with {@code failure} when
     * given, else reports nothing (the scheduler has already ended it). A start report still held is never sent.
     * It no longer holds its slot.
     */
    void abort(String reason, String failure) {
        if (settlement.settle() && failure != null) {
            reportFailed(failure, true);
        }
        context.cancellation().cancel(reason);
        synchronized (this) {
            if (thread != null) {
                thread.interrupt();
            }
        }
        host.ended(this, true);
    }

    private void progress(Double fraction, String message) {
        if (settlement.settled()) {
            return; // the attempt is over (or aborted); progress would only be fenced
        }
        settlement.sendHeld(); // the start goes first
        report(new AttemptProgress(taskId(), context.pool(), attempt(), context.workerId(), context.generation(),
                now(), fraction, message));
    }

    private AttemptStarted started() {
        return new AttemptStarted(taskId(), context.pool(), attempt(), context.workerId(), context.generation(), now());
    }

    private void reportFailed(String error, boolean retryable) {
        report(new AttemptFailed(taskId(), context.pool(), attempt(), context.workerId(), context.generation(),
                now(), error, retryable));
    }

    private void report(SpecificRecord event) {
        host.report(event);
    }

    private String taskId() {
        return context.taskId();
    }

    private int attempt() {
        return context.attempt();
    }

    private String abortReason() {
        return context.cancellation().reason().orElse("aborted");
    }

    private Instant now() {
        return clock.instant();
    }

    private static String error(Throwable t) {
        String text;
        if (t instanceof TaskFailedException || t instanceof NonRetryableException) {
            text = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        } else {
            text = t.getMessage() == null ? t.getClass().getName() : t.getClass().getName() + ": " + t.getMessage();
        }
        return Rules.shortened(text, Rules.MAX_ERROR_LENGTH); // as the scheduler keeps it
    }
}
