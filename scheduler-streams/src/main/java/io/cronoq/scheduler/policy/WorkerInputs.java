package io.cronoq.scheduler.policy;

import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerHeartbeat;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.rules.Rules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The worker inputs as decisions: a worker registers (joining the group of its labels and the
 * profile of its resources), heartbeats, drains, or leaves; each opened by the same admission
 * checks. What a generation's going away does is {@link Departures}'; a leave holding attempts
 * starts its grace in {@link Leaves}.
 */
final class WorkerInputs {

    private final PoolModel m;
    private final Placement placement;
    private final Departures departures;
    private final Leaves leaves;

    WorkerInputs(PoolModel model, Placement placement, Departures departures, Leaves leaves) {
        this.m = model;
        this.placement = placement;
        this.departures = departures;
        this.leaves = leaves;
    }

    /**
     * A worker joins (or re-joins) the pool with generation previous + 1 and joins the group of its
     * labels (and the profile of its published resources); its free slots are offered to the
     * waiting tasks at once. A re-registration while the previous generation was live (leaving
     * included: its grace ends with it) fences that generation ({@code WorkerFenced}) and re-queues
     * its attempts as new attempts ({@code TaskFinished} LOST, WAITING). Classes whose reason to
     * wait changed say so. Its silence (the eviction rule) counts from {@code heardAt}.
     */
    List<Decision> register(WorkerRegistered in, Instant heardAt) {
        List<Decision> out = new ArrayList<>(4);
        if (m.admission.refused("WorkerRegistered", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        String id = in.getWorkerId();
        Instant at = in.getRegisteredAt();
        out.add(Decision.journal(in, null));
        m.rememberPool();
        placement.reasons.ensureReasons();
        Worker previous = m.workers.get(id);
        long generation = previous == null ? 1 : previous.generation() + 1;
        Departures.Departure gone = Departures.Departure.none();
        if (previous != null && previous.live()) {
            out.add(Decision.journalAndNotify(new WorkerFenced(id, m.pool, previous.generation(), generation, null,
                    null, "worker " + id + " registered again as generation " + generation + "; generation "
                            + previous.generation() + " is fenced and its " + previous.busy() + " attempt(s) are lost",
                    at), id, null));
            gone = departures.leaveGroup(previous, "worker " + id + " generation " + previous.generation() + " is gone",
                    at, out);
        }
        WorkerRecord record = new WorkerRecord(id, m.pool, in.getLabels(), in.getSlots(), in.getResources(), generation,
                WorkerState.ACTIVE, new ArrayList<>(), at,
                previous == null ? 0L : previous.lastAssignedSequence(), heardAt, null, null, in.getAddress());
        Worker worker = new Worker(record);
        m.workers.put(id, worker);
        Profile profile = m.groups.join(worker);
        gone.touched().addAll(profile.needs);
        m.store.putWorker(record);
        placement.offer(profile);
        out.add(Decision.journal(new WorkerAccepted(id, generation), null));
        out.add(Decision.notify(new RegistrationAccepted(id, m.pool, generation, profile.labels().asMap(),
                in.getSlots(), at), id));
        placement.requeue(gone.lost(), at, out, gone.touched());
        return out;
    }

    /**
     * A live worker under its current generation refreshes its last heartbeat, the eviction clock,
     * to {@code heardAt}: no decision, not journaled. So a worker whose clock is behind is not
     * evicted for it, and heartbeats queued behind a busy scheduler count from when they are read.
     * A leaving worker is live: its heartbeat is taken the same way, and neither ends nor extends its
     * leave grace (a fence would tell it to abort the very attempts whose reports the grace awaits).
     * Any other (unknown worker, left, or another generation) is answered with {@code WorkerFenced},
     * journaled and sent to it, so it aborts what it runs and registers again.
     */
    List<Decision> heartbeat(WorkerHeartbeat in, Instant heardAt) {
        List<Decision> out = new ArrayList<>(1);
        if (m.admission.refused("WorkerHeartbeat", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        String id = in.getWorkerId();
        Worker w = m.workers.get(id);
        String stale = m.admission.staleness(w, id, in.getGeneration());
        if (stale != null) {
            out.add(m.admission.fence(id, in.getGeneration(), null, null, stale, in.getSentAt()));
            return out;
        }
        if (heardAt.isAfter(w.record.getLastHeartbeat())) {
            w.record.setLastHeartbeat(heardAt);
            m.store.putWorker(w.record);
        }
        return out;
    }

    /**
     * A worker stops taking work. Its slots leave capacity at once (autoscaling should not count
     * slots that will never take a task); the attempts it runs finish normally and are reported as
     * {@code drainingBusy}. Draining twice is accepted and changes nothing.
     */
    List<Decision> drain(WorkerDraining in) {
        List<Decision> out = new ArrayList<>(2);
        if (m.admission.refused("WorkerDraining", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        Worker w = m.admission.liveWorker("WorkerDraining", in.getWorkerId(), in.getGeneration(), in.getAt(), out);
        if (w == null) {
            return out;
        }
        out.add(Decision.journal(in, null));
        if (w.active()) {
            placement.reasons.ensureReasons();
            LinkedHashSet<Need> touched = new LinkedHashSet<>(w.profile().needs);
            m.groups.drain(w);
            m.store.putWorker(w.record);
            placement.requeue(List.of(), in.getAt(), out, touched);
        }
        return out;
    }

    /**
     * A worker leaves. Holding nothing, it is removed at once: its capacity leaves its group (an
     * empty group disappears) and {@code WorkerRemoved} LEFT records why. Holding attempts, it
     * starts its leave grace ({@link Leaves}), heard at {@code heardAt}: it takes nothing new, the
     * reports of its attempts are still accepted, and it is removed when the last of them ends or,
     * at the end of the grace, by a tick that re-queues what it still holds as new attempts
     * ({@code TaskFinished} LOST, WAITING), placed if a slot is free. A second leave while it
     * leaves is rejected and changes nothing.
     */
    List<Decision> leave(WorkerLeft in, Instant heardAt) {
        List<Decision> out = new ArrayList<>(4);
        if (m.admission.refused("WorkerLeft", Rules.check(in), in.getPool(), null, in.getWorkerId(), out)) {
            return out;
        }
        in.setReason(Rules.shortened(in.getReason(), Rules.MAX_LEAVE_REASON_LENGTH));
        Worker w = m.admission.liveWorker("WorkerLeft", in.getWorkerId(), in.getGeneration(), in.getAt(), out);
        if (w == null) {
            return out;
        }
        if (w.leaving()) {
            out.add(Admission.rejected("WorkerLeft", RejectionCode.FAILED_PRECONDITION, "workerId",
                    "worker " + w.id() + " already left at " + w.record.getLeftAt() + "; the reports of its "
                            + w.busy() + " attempt(s) are awaited", null, w.id()));
            return out;
        }
        leaves.leave(w, in, heardAt, out);
        return out;
    }
}
