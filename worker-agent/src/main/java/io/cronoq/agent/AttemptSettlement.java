package io.cronoq.agent;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;

/**
 * Whether an attempt is settled (its outcome reported, or deliberately not) and what became of its start report,
 * which may be held back for a short delay: the held report goes out when the delay ends with the attempt not yet
 * settled, or earlier when another report of the attempt is about to follow, and never once the attempt is settled.
 * So the start report, when there is one, always precedes the final report, and an attempt that ends within the
 * delay is reported once. The attempt's thread, the timer and aborts decide under one lock.
 */
final class AttemptSettlement {

    /** What became of the start report. */
    private enum Start {
        /** The attempt has not started. */
        NOT_YET,
        /** Started; the report waits for the delay to end. */
        HELD,
        /** The report went out. */
        SENT,
        /** The attempt was settled before the report went out: there is none. */
        DROPPED
    }

    private final Consumer<SpecificRecord> send;
    private boolean settled;
    private Start start = Start.NOT_YET;
    private SpecificRecord heldReport;
    private ScheduledFuture<?> timer;

    /** @param send publishes a report of the attempt */
    AttemptSettlement(Consumer<SpecificRecord> send) {
        this.send = send;
    }

    /** Whether the attempt is settled. */
    synchronized boolean settled() {
        return settled;
    }

    /**
     * Settles the attempt; returns whether this call did (false: it was settled already). A start report still held
     * is dropped for good: once this returns, the start report either went out before or never will.
     */
    synchronized boolean settle() {
        if (settled) {
            return false;
        }
        settled = true;
        if (start == Start.HELD) {
            start = Start.DROPPED;
            heldReport = null;
            timer.cancel(false);
        }
        return true;
    }

    /**
     * The attempt starts: its start report {@code started} goes out once {@code delay} has passed on {@code timers},
     * unless the attempt is settled by then. A zero delay sends it at once, and so does a timer that no longer runs
     * (the worker is closing). Returns false, sending nothing, when the attempt is settled already: it must not
     * start.
     */
    synchronized boolean start(SpecificRecord started, Duration delay, ScheduledExecutorService timers) {
        if (settled) {
            return false;
        }
        if (delay.isZero()) {
            sendStart(started);
            return true;
        }
        try {
            timer = timers.schedule(this::sendHeld, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            sendStart(started);
            return true;
        }
        heldReport = started;
        start = Start.HELD;
        return true;
    }

    /** Sends the held start report now, if it is still held: another report of the attempt is about to follow. */
    synchronized void sendHeld() {
        if (start == Start.HELD) {
            timer.cancel(false);
            SpecificRecord report = heldReport;
            heldReport = null;
            sendStart(report);
        }
    }

    private void sendStart(SpecificRecord started) {
        start = Start.SENT;
        send.accept(started);
    }
}
