package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.events.JournalKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Re-runs one pool's recorded inputs through the real {@link PoolScheduler} against a changed
 * fleet, as a discrete-event loop over the scheduler's own clock ({@link JournalClock#heard}): each
 * recorded input is applied when the recorded scheduler heard it (the journal's {@code heardAt},
 * else its {@code at}), which is also the {@code heardAt} the simulated scheduler is given, and
 * the scheduler ticks on that clock, as the recorded one ticked on its wall clock. So what counts
 * on the scheduler's clock (a preemption grace) comes out as recorded whatever clocks the inputs'
 * producers had. The simulated journal is stamped as the topology stamps it: what an input caused
 * at the input's record time ({@code at}; a synthesized report at its recorded one, moved as far
 * as the report moved), with {@code heardAt} where the scheduler's clock differs; what a tick
 * caused at the tick's time.
 *
 * <p>What the outside world did is replayed as recorded: submissions, cancels (a refused cancel
 * too, rebuilt from its refusal), registrations, draining and leaving, at their recorded times
 * (registrations of a removed group and what that worker did after are dropped; added workers
 * register before the first entry). What workers report depends on where the simulation places
 * attempts, so it is synthesized: when simulated attempt n of a task is assigned, recorded attempt
 * n of that task is replayed on the simulated worker, shifted by the difference in assignment
 * times (for a fixed start, in the times from which its worker could start it: its assignment or
 * its start time, whichever is later): its start after the same delay, its report ({@code AttemptSucceeded}, or {@code AttemptFailed}
 * with the same error and retryability) after the same run time. A recorded attempt that the
 * scheduler ended instead (lost with its worker, revoked) reports like the task's next reported
 * attempt, but never before its recorded lifetime has passed, so the event that ended it still
 * ends it when it lands where it did. An attempt beyond the recorded ones reports like the last
 * reported one; one with nothing recorded to replay runs until an outside event ends it.
 *
 * <p>Time's decisions (delayed starts, retry backoffs, fixed-start reservations, near deadlines,
 * lease expiries) are the scheduler's own: after every event the loop asks
 * {@link PoolScheduler#nextDue()} and ticks the scheduler exactly then. Evictions are not
 * re-derived: heartbeats are not journaled, so the scheduler runs with a heartbeat timeout that
 * never passes, and each recorded eviction is replayed at its recorded time with its recorded
 * reason ({@link PoolScheduler#evict}): the worker is evicted as the recorded scheduler evicted
 * it, its generation fenced and bumped, and the attempts it holds in the simulation are lost and
 * re-queued. A leave's grace is not re-derived either (it counts from when the scheduler heard the
 * leave, which journals of older releases do not keep): the simulated grace never ends by itself,
 * and each recorded removal of a leaving worker is replayed at its recorded position
 * ({@link PoolScheduler#endLeave}), losing what the worker still holds in the simulation; where
 * the simulated leave or its last report already removed it, the replay changes nothing.
 * A what-if sharing policy ({@link SharingChange}) is put in force before the first entry and again
 * right after each recorded change of the same tenant or pool, at its time and position.
 * A registration the change drops does not bump the worker's generation as the
 * recorded one did, so the recorded drains and leaves of such a worker are replayed under the
 * generation they name less one per dropped registration.
 *
 * <p>Events are ordered by time; at the same time a replayed eviction comes first, then the tick
 * (the real scheduler evicts first in a tick; and its ticks come from a wall-clock punctuator that
 * runs when the time is reached, while an input stamped with that time is still on its way),
 * then the other events by the recorded journal position of the event they replay (synthesized
 * reports take their recorded report's position). With no change, every outside event keeps its
 * recorded time and position and the scheduler ticks when its own timers and leases are due, so
 * it sees the recorded inputs in the recorded order and makes the recorded decisions; a real
 * scheduler ticks up to one tick interval after they are due, so its time-decided entries may be
 * that much later than the simulation's.
 */
final class Simulation {

    /** What the simulation of one pool produced: its journal, and how the fleet was changed. */
    record Result(String pool, List<JournalEntry> journal, int addedWorkers, int droppedRegistrations) {}

    /**
     * The heartbeat timeout of the simulated scheduler: effectively never, so it evicts no one on
     * its own (the journal has no heartbeats); recorded evictions are replayed instead.
     */
    static final long NEVER_EVICT_MS = Long.MAX_VALUE / 4;

    /** What happens first at one time: a replayed eviction, then the tick, then everything else. */
    private static final int EVICTION = 0;
    private static final int TICK = 1;
    private static final int EVENT = 2;
    private static final long NO_TICK = Long.MIN_VALUE;

    /**
     * One event to process at {@code time} on the scheduler's clock, carrying the record time
     * {@code stamp} (its producer's clock: what its journal entries are stamped with); {@code input}
     * is null for a tick.
     */
    private record Pending(long time, long stamp, int kind, long seq, long order, SpecificRecord input,
                           boolean synthesized) {}

    private static final Comparator<Pending> ORDER = Comparator.comparingLong(Pending::time)
            .thenComparingInt(Pending::kind).thenComparingLong(Pending::seq).thenComparingLong(Pending::order);

    private final String pool;
    private final PoolScheduler scheduler;
    private final RecordedRuns runs;
    /** Per recorded entry, how far its record time ({@code at}) was from when the scheduler heard it. */
    private final long[] skews;
    private final PriorityQueue<Pending> queue = new PriorityQueue<>(ORDER);
    private final Map<String, AttemptAssigned> live = new HashMap<>();
    private final List<JournalEntry> journal = new ArrayList<>();
    private long order;
    /** Position of the next input put before the pool's first entry (the what-if's policy, added workers). */
    private long startSeq = Long.MIN_VALUE;
    /** The time of the one tick that counts; other ticks in the queue are stale and skipped. */
    private long tickAt = NO_TICK;

    /**
     * Looks at the simulated pool at chosen times: {@link #at} is called once for each of its
     * {@link #times}, before the first event at or after it, with the scheduler's store and the
     * journal so far (read them; change nothing).
     */
    interface Observer {
        /** The instants to look at, ascending, in epoch milliseconds. */
        long[] times();

        void at(long time, InMemoryPoolStore store, List<JournalEntry> journalSoFar);
    }

    private static final Observer NO_OBSERVER = new Observer() {
        @Override
        public long[] times() {
            return new long[0];
        }

        @Override
        public void at(long time, InMemoryPoolStore store, List<JournalEntry> journalSoFar) {}
    };

    private final InMemoryPoolStore store = new InMemoryPoolStore();
    private Observer observer = NO_OBSERVER;

    private Simulation(String pool, RecordedRuns runs, long[] skews, TimeRules rules) {
        this.pool = pool;
        this.scheduler = new PoolScheduler(pool, store, simulated(rules));
        this.runs = runs;
        this.skews = skews;
    }

    /**
     * What the simulated scheduler runs with: {@code rules} with a heartbeat timeout and a leave
     * grace that never pass (recorded evictions and ends of graces are replayed), and no retention (it forgets no finished task, so every simulated task can be compared
     * with its recorded run however long the journal spans; recorded {@code TaskForgotten} entries are
     * decisions, not inputs, and are not replayed).
     */
    static TimeRules simulated(TimeRules rules) {
        return new TimeRules(NEVER_EVICT_MS, rules.reservationLeadMs(), rules.deadlineLeadMs(), rules.priorityStepMs(),
                rules.startToleranceMs(), 0, NEVER_EVICT_MS, rules.gangReserveAfterMs(), rules.gangReservationMs(),
                rules.gangStartTimeoutMs());
    }

    /** Simulates one pool with the default time rules: {@code recorded} is that pool's journal, in order. */
    static Result run(String pool, List<JournalEntry> recorded, FleetChange change) {
        return run(pool, recorded, change, TimeRules.DEFAULT);
    }

    /**
     * Simulates one pool: {@code recorded} is that pool's journal, in order; {@code rules} are the
     * durations the recorded scheduler ran with (its heartbeat timeout is not used).
     */
    static Result run(String pool, List<JournalEntry> recorded, FleetChange change, TimeRules rules) {
        return run(pool, recorded, change, SharingChange.none(), rules);
    }

    /**
     * Simulates one pool under a changed fleet and a changed sharing policy: {@code recorded} is that
     * pool's journal, in order; {@code rules} are the durations the recorded scheduler ran with.
     */
    static Result run(String pool, List<JournalEntry> recorded, FleetChange change, SharingChange sharing,
                      TimeRules rules) {
        long[] times = JournalClock.heard(recorded);
        Simulation simulation = new Simulation(pool, RecordedRuns.of(recorded, times), skews(recorded, times), rules);
        long start = times.length == 0 ? 0 : times[0];
        simulation.shareFromStart(sharing, start);
        int added = simulation.addWorkers(change, start);
        int dropped = simulation.replayOutsideEvents(recorded, times, change, sharing);
        simulation.loop();
        return new Result(pool, List.copyOf(simulation.journal), added, dropped);
    }

    /**
     * Re-runs one pool's journal as recorded (no change), showing the state to {@code observer} at the
     * times it asks for.
     */
    static Result observe(String pool, List<JournalEntry> recorded, TimeRules rules, Observer observer) {
        long[] times = JournalClock.heard(recorded);
        Simulation simulation = new Simulation(pool, RecordedRuns.of(recorded, times), skews(recorded, times), rules);
        simulation.observer = observer;
        simulation.replayOutsideEvents(recorded, times, FleetChange.none(), SharingChange.none());
        simulation.loop();
        return new Result(pool, List.copyOf(simulation.journal), 0, 0);
    }

    /** Per recorded entry, its record time less its time on the scheduler's clock. */
    private static long[] skews(List<JournalEntry> recorded, long[] times) {
        long[] skews = new long[times.length];
        for (int i = 0; i < times.length; i++) {
            skews[i] = recorded.get(i).getAt().toEpochMilli() - times[i];
        }
        return skews;
    }

    /** The what-if's sharing policy, in force before the pool's first entry. */
    private void shareFromStart(SharingChange sharing, long start) {
        for (SharingPolicySet change : sharing.atStart(pool, Instant.ofEpochMilli(start))) {
            queue.add(new Pending(start, start, EVENT, startSeq++, order++, change, false));
        }
    }

    private int addWorkers(FleetChange change, long start) {
        int added = 0;
        for (FleetChange.AddWorkers add : change.added()) {
            if (!add.pool().equals(pool)) {
                continue;
            }
            for (int i = 0; i < add.count(); i++) {
                added++;
                WorkerRegistered worker = WorkerRegistered.newBuilder().setWorkerId("simulated-" + added)
                        .setPool(pool).setLabels(new HashMap<>(add.labels())).setSlots(add.slots())
                        .setRegisteredAt(Instant.ofEpochMilli(start)).build();
                queue.add(new Pending(start, start, EVENT, startSeq++, order++, worker, false));
            }
        }
        return added;
    }

    private int replayOutsideEvents(List<JournalEntry> recorded, long[] times, FleetChange change,
                                    SharingChange sharing) {
        Fleet fleet = new Fleet(labels -> change.removes(pool, labels));
        for (int i = 0; i < recorded.size(); i++) {
            Object event = recorded.get(i).getEvent();
            JournalKind kind = JournalKind.of(event);
            SpecificRecord input = switch (kind) {
                // An admin's sharing policy or limit is an input like a submission: the simulated scheduler decides under it.
                case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED -> (SpecificRecord) event;
                // Another pool's word about a dependency comes as recorded: the simulation runs one pool, so a
                // parent or child elsewhere keeps its recorded timing. Within the pool, dependencies are re-derived.
                case PARENT_WATCHED, PARENT_ENDED -> (SpecificRecord) event;
                case WORKER_REGISTERED -> fleet.registered((WorkerRegistered) event);
                case WORKER_DRAINING -> fleet.draining((WorkerDraining) event);
                case WORKER_LEFT -> fleet.left((WorkerLeft) event);
                // Heartbeats are not journaled, so the simulation cannot tell when a worker fell silent: the
                // eviction is replayed as recorded. Nor when the scheduler heard a leave, from which its grace
                // counts: a removal on leaving ends the grace as recorded (see dispatch).
                case WORKER_REMOVED -> fleet.removed((WorkerRemoved) event);
                // The request itself is not journaled, only its refusal; in another fleet it may find the task running.
                case INPUT_REJECTED -> isRefusedCancel((InputRejected) event) ? TaskCancelRequested.newBuilder()
                        .setTaskId(Journal.taskId(event)).setPool(pool).setRequestedAt(Instant.ofEpochMilli(times[i]))
                        .build() : null;
                // What workers report is synthesized where the simulation places attempts (see plan); the
                // decisions are the simulated scheduler's own.
                case ATTEMPT_STARTED, ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, ATTEMPT_ASSIGNED, TASK_FINISHED,
                        TASK_CANCELLED, DUPLICATE_SUBMISSION, WORKER_ACCEPTED, ATTEMPT_REVOKED, WORKER_FENCED,
                        REGISTRATION_REJECTED, TASK_FORGOTTEN, TASK_BLOCKED -> null;
            };
            if (input != null) {
                // A copy: the scheduler keeps and updates what it is given, and the recording must stay as it was.
                boolean eviction = input instanceof WorkerRemoved r && r.getState() == WorkerState.EVICTED;
                queue.add(new Pending(times[i], times[i] + skews[i], eviction ? EVICTION : EVENT, i, order++,
                        SpecificData.get().deepCopy(input.getSchema(), input), false));
            }
            if (input instanceof SharingPolicySet recordedPolicy) {
                // Right after it (same time and position, queued later): the what-if holds again.
                Optional<SharingPolicySet> again = sharing.after(recordedPolicy, Instant.ofEpochMilli(times[i]));
                if (again.isPresent()) {
                    queue.add(new Pending(times[i], times[i], EVENT, i, order++, again.get(), false));
                }
            }
        }
        return fleet.dropped;
    }

    /**
     * The recorded fleet's comings and goings as the changed fleet replays them: a registration of a
     * removed group is dropped, and what that worker does after it; a dropped registration did not
     * bump the worker's generation, so its later drains and leaves are renumbered.
     */
    private static final class Fleet {
        /** Whether the change removes the group of these labels. */
        private final Predicate<Map<String, String>> removed;
        private final Set<String> removedWorkers = new HashSet<>();
        /** Per worker, how many recorded generation bumps the simulation does not make: its dropped registrations. */
        private final Map<String, Integer> unmatched = new HashMap<>();
        private int dropped;

        Fleet(Predicate<Map<String, String>> removed) {
            this.removed = removed;
        }

        WorkerRegistered registered(WorkerRegistered r) {
            if (!removed.test(r.getLabels())) {
                removedWorkers.remove(r.getWorkerId());
                return r;
            }
            removedWorkers.add(r.getWorkerId());
            unmatched.merge(r.getWorkerId(), 1, Integer::sum);
            dropped++;
            return null;
        }

        WorkerDraining draining(WorkerDraining d) {
            return removedWorkers.contains(d.getWorkerId()) ? null : WorkerDraining.newBuilder(d)
                    .setGeneration(renumbered(d.getGeneration(), unmatched.get(d.getWorkerId()))).build();
        }

        WorkerLeft left(WorkerLeft l) {
            return removedWorkers.contains(l.getWorkerId()) ? null : WorkerLeft.newBuilder(l)
                    .setGeneration(renumbered(l.getGeneration(), unmatched.get(l.getWorkerId()))).build();
        }

        /** A recorded eviction or removal on leaving, unless its worker's registration was dropped. */
        WorkerRemoved removed(WorkerRemoved r) {
            boolean replayed = r.getState() == WorkerState.EVICTED || r.getState() == WorkerState.LEFT;
            return replayed && !removedWorkers.contains(r.getWorkerId()) ? r : null;
        }
    }

    /** A recorded generation in the simulation's numbering: every dropped registration of the worker before it bumped it. */
    private static Long renumbered(Long generation, Integer unmatched) {
        return generation == null || unmatched == null ? generation : generation - unmatched;
    }

    /** A well-formed cancel refused because its task was unknown or already finished at the time. */
    private static boolean isRefusedCancel(InputRejected r) {
        return "TaskCancelRequested".equals(r.getInputType()) && r.getTaskId() != null
                && r.getCode() != RejectionCode.INVALID_ARGUMENT;
    }

    private void loop() {
        scheduleTick(Long.MIN_VALUE);
        long[] looks = observer.times();
        int look = 0;
        while (!queue.isEmpty()) {
            Pending next = queue.poll();
            while (look < looks.length && looks[look] <= next.time()) {
                observer.at(looks[look++], store, journal);
            }
            List<Decision> decisions;
            if (next.input() == null) {
                if (next.time() != tickAt) {
                    continue; // a tick queued for a due time that has moved since
                }
                tickAt = NO_TICK;
                decisions = scheduler.tick(Instant.ofEpochMilli(next.time()));
            } else if (next.synthesized() && !isLive(next.input())) {
                continue; // the attempt ended (lost, revoked, cancelled) before its worker would report
            } else {
                decisions = dispatch(next.input(), next.time());
            }
            apply(decisions, next.stamp(), next.time());
            scheduleTick(next.time());
        }
    }

    /**
     * Journals the decisions made at {@code time} on the scheduler's clock, stamped {@code stamp}
     * (and heard at {@code time} where that differs), and plans what the workers of new attempts
     * report.
     */
    private void apply(List<Decision> decisions, long stamp, long time) {
        Instant at = Instant.ofEpochMilli(stamp);
        Instant heardAt = stamp == time ? null : Instant.ofEpochMilli(time);
        for (Decision decision : decisions) {
            if (!decision.journal()) {
                continue; // only a worker's notice (RegistrationAccepted, journaled as WorkerAccepted): no attempt in it
            }
            SpecificRecord event = decision.event();
            journal.add(Journal.entry(pool, at, heardAt, event, decision.cause()));
            boolean ended = switch (JournalKind.of(event)) {
                case ATTEMPT_ASSIGNED -> {
                    AttemptAssigned a = (AttemptAssigned) event;
                    live.put(Journal.attemptKey(a.getTaskId(), a.getAttempt()), a);
                    plan(a, time);
                    yield false;
                }
                // Over: what its worker would still report is not replayed (see isLive).
                case TASK_FINISHED, ATTEMPT_REVOKED -> true;
                case TASK_SUBMITTED, TASK_CANCEL_REQUESTED, WORKER_REGISTERED, WORKER_DRAINING, WORKER_LEFT,
                        ATTEMPT_STARTED, ATTEMPT_SUCCEEDED, ATTEMPT_FAILED, TASK_WAITING, TASK_CANCELLED,
                        DUPLICATE_SUBMISSION, INPUT_REJECTED, WORKER_ACCEPTED, WORKER_REMOVED, WORKER_FENCED,
                        REGISTRATION_REJECTED, TASK_FORGOTTEN, SHARING_POLICY_SET, LIMIT_SET, GANG_SUBMITTED,
                        PARENT_WATCHED, PARENT_ENDED, TASK_BLOCKED -> false;
            };
            if (ended) {
                live.remove(Journal.attemptOf(event).key());
            }
        }
    }

    /**
     * Makes sure a tick is queued for when the scheduler next has something due (a lease ends, a
     * timer fires); never before {@code now}, as the loop's time only moves forward.
     */
    private void scheduleTick(long now) {
        Instant due = scheduler.nextDue();
        if (due == null) {
            tickAt = NO_TICK;
            return;
        }
        long time = Math.max(due.toEpochMilli(), now);
        if (time != tickAt) {
            tickAt = time;
            queue.add(new Pending(time, time, TICK, 0, order++, null, false));
        }
    }

    /** Schedules what the worker of a just-assigned attempt will report, from the recorded runs. */
    private void plan(AttemptAssigned a, long assignedAt) {
        long from = holdsFrom(a, assignedAt);
        RecordedRuns.Run run = runs.get(a.getTaskId(), a.getAttempt());
        if (run != null && run.reported()) {
            start(a, assignedAt, from, run);
            report(a, assignedAt, from + run.reportOffset(), run);
        } else if (run != null) {
            start(a, assignedAt, from, run);
            RecordedRuns.Run next = run.interrupted() ? runs.nextReported(a.getTaskId(), a.getAttempt()) : null;
            if (next != null) {
                report(a, assignedAt, from + Math.max(run.lifetime() + 1, run.startOffset() + next.runMs()), next);
            }
        } else {
            RecordedRuns.Run last = runs.lastReported(a.getTaskId());
            if (last != null) {
                start(a, assignedAt, from, last);
                report(a, assignedAt, from + last.reportOffset(), last);
            }
        }
    }

    /** When the worker of an attempt may start it: at its assignment, or at its fixed start if that is later. */
    static long holdsFrom(AttemptAssigned a, long assignedAt) {
        return a.getStartAt() == null ? assignedAt : Math.max(assignedAt, a.getStartAt().toEpochMilli());
    }

    private void start(AttemptAssigned a, long assignedAt, long from, RecordedRuns.Run run) {
        AttemptStarted recorded = run.started();
        if (recorded == null) {
            return;
        }
        long at = Math.max(assignedAt, from + run.startOffset());
        AttemptStarted started = AttemptStarted.newBuilder(recorded).setAttempt(a.getAttempt())
                .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                .setAt(shift(recorded.getAt(), at - run.startedAt())).build();
        queue.add(new Pending(at, at + skews[run.startedSeq()], EVENT, run.startedSeq(), order++, started, true));
    }

    private void report(AttemptAssigned a, long assignedAt, long when, RecordedRuns.Run run) {
        long at = Math.max(assignedAt, when);
        long shift = at - run.reportedAt();
        // A run's report is how its worker said the attempt ended: a success or a failure (RecordedRuns).
        SpecificRecord report;
        if (run.report() instanceof AttemptSucceeded s) {
            report = AttemptSucceeded.newBuilder(s).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(shift(s.getAt(), shift)).build();
        } else {
            AttemptFailed f = (AttemptFailed) run.report();
            report = AttemptFailed.newBuilder(f).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(shift(f.getAt(), shift)).build();
        }
        queue.add(new Pending(at, at + skews[run.reportedSeq()], EVENT, run.reportedSeq(), order++, report, true));
    }

    private static Instant shift(Instant at, long ms) {
        return at.plusMillis(ms);
    }

    /** Whether the attempt a synthesized report is about is still the one its worker holds in the simulation. */
    private boolean isLive(SpecificRecord report) {
        Journal.Attempt reported = Journal.attemptOf(report);
        AttemptAssigned a = live.get(reported.key());
        return a != null && a.getWorkerId().equals(reported.workerId()) && a.getGeneration() == reported.generation();
    }

    private List<Decision> dispatch(SpecificRecord input, long time) {
        if (input instanceof WorkerRemoved e) {
            // An eviction as recorded; a removal on leaving ends the worker's grace as recorded, and changes
            // nothing where the simulated leave (or the last report after it) has already removed it.
            return e.getState() == WorkerState.EVICTED
                    ? scheduler.evict(e.getWorkerId(), Instant.ofEpochMilli(time), e.getReason())
                    : scheduler.endLeave(e.getWorkerId(), Instant.ofEpochMilli(time));
        }
        return scheduler.apply(input, Instant.ofEpochMilli(time));
    }
}
