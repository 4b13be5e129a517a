package io.cronoq.scheduler.policy;

import io.cronoq.events.AttemptRecord;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Durations;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A worker that leaves while it still holds attempts. Its {@code WorkerLeft} travels on another
 * topic than the reports it sent before it, and may be read first; so its attempts are not lost at
 * the leave. It takes nothing new from then on (it is DRAINING: its capacity leaves its group), and
 * the reports of its generation about the attempts it holds are accepted for
 * {@link TimeRules#leaveGraceMs}, counted from when the scheduler heard the leave (its clock, never
 * the worker's). It is removed as LEFT when its last attempt ends, or by the first tick at or after
 * the end of the grace, which loses what it still holds exactly as a leave without grace does
 * ({@link Departures#remove}). A leave that finds nothing held, or a grace of 0, removes it at
 * once. The leave's time and reason are kept in the worker's record, so a restarted scheduler keeps
 * the grace; an eviction or a new registration ends it like any generation.
 */
final class Leaves {

    private final PoolModel m;
    private final Placement placement;
    private final Departures departures;

    Leaves(PoolModel model, Placement placement, Departures departures) {
        this.m = model;
        this.placement = placement;
        this.departures = departures;
    }

    /**
     * An accepted leave of a live worker that is not leaving yet: journaled, then it is removed at
     * once (nothing held, or no grace) or starts its grace, heard at {@code heardAt}.
     */
    void leave(Worker w, WorkerLeft in, Instant heardAt, List<Decision> out) {
        String generation = "worker " + w.id() + " generation " + w.generation();
        w.record.setLeftAt(heardAt);
        w.record.setLeaveReason(in.getReason());
        if (w.busy() == 0 || m.rules.leaveGraceMs() == 0) {
            out.add(Decision.journal(in, null));
            remove(w, in.getReason(), null, generation + " left", in.getAt(), out);
            return;
        }
        Instant ends = heardAt.plusMillis(m.rules.leaveGraceMs());
        out.add(Decision.journal(in, generation + " takes nothing new; the reports of the " + w.busy()
                + " attempt(s) it holds are accepted until " + ends + ": its " + grace()));
        boolean wasActive = w.active();
        LinkedHashSet<Need> touched = null;
        if (wasActive) {
            placement.reasons.ensureReasons();
            touched = new LinkedHashSet<>(w.profile().needs);
            m.groups.drain(w);
        }
        if (heardAt.isAfter(w.record.getLastHeartbeat())) {
            w.record.setLastHeartbeat(heardAt); // its leave is word from it: its silence counts from here
        }
        m.store.putWorker(w.record);
        m.leaving.put(w.id(), w);
        if (wasActive) {
            placement.requeue(List.of(), in.getAt(), out, touched);
        }
    }

    /** After one of a worker's attempts ended: a leaving worker that now holds nothing is removed as LEFT. */
    void ended(AttemptRecord attempt, Instant at, List<Decision> out) {
        Worker w = m.leaving.get(attempt.getWorkerId());
        if (w != null && w.generation() == attempt.getGeneration() && w.busy() == 0) {
            remove(w, w.record.getLeaveReason(), "its last attempt ended within its " + grace(),
                    "worker " + w.id() + " generation " + w.generation() + " left", at, out);
        }
    }

    /** The tick's part: every leaving worker whose grace is over by {@code now} is removed, what it holds lost. */
    void expire(Instant now, List<Decision> out) {
        List<Worker> over = new ArrayList<>();
        for (Worker w : m.leaving.values()) {
            if (graceEndsMillis(w) <= now.toEpochMilli()) {
                over.add(w);
            }
        }
        for (Worker w : over) {
            endNow(w.id(), now, out);
        }
    }

    /**
     * Ends the grace of a leaving worker at {@code at} as a tick does when it is over (what it still
     * holds is lost); a worker that is not leaving is left alone.
     */
    void endNow(String workerId, Instant at, List<Decision> out) {
        Worker w = m.leaving.get(workerId);
        if (w != null) {
            remove(w, w.record.getLeaveReason(), "its " + grace() + " ended with " + w.busy()
                    + " attempt(s) unreported", "worker " + w.id() + " generation " + w.generation()
                    + " left and did not report within its " + grace(), at, out);
        }
    }

    /** When the first grace ends, in epoch milliseconds, or {@code Long.MAX_VALUE} when no worker is leaving. */
    long nextMillis() {
        long first = Long.MAX_VALUE;
        for (Worker w : m.leaving.values()) {
            first = Math.min(first, graceEndsMillis(w));
        }
        return first;
    }

    /** {@code WorkerRemoved} LEFT with the leave's reason, then the generation departs, losing what it holds. */
    private void remove(Worker w, String reason, String removedCause, String lostCause, Instant at,
                        List<Decision> out) {
        out.add(Decision.journal(new WorkerRemoved(w.id(), w.generation(), WorkerState.LEFT,
                reason != null ? reason : "left"), removedCause));
        departures.remove(w, WorkerState.LEFT, w.generation(), lostCause, at, out);
    }

    private long graceEndsMillis(Worker w) {
        long left = w.record.getLeftAt().toEpochMilli();
        long ends = left + m.rules.leaveGraceMs();
        return ends < left ? Long.MAX_VALUE : ends;
    }

    private String grace() {
        return "leave grace of " + Durations.words(m.rules.leaveGraceMs()) + " (cronoq.leave.grace.ms)";
    }
}
