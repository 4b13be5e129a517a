package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.events.WorkerLeft;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.InMemoryPoolStore;
import io.cronoq.scheduler.policy.PoolScheduler;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Re-runs one pool's recorded inputs through the real {@link PoolScheduler} against a changed
 * fleet, as a discrete-event loop over the pool's clock ({@link JournalClock}).
 *
 * <p>What the outside world did is replayed as recorded: submissions, cancels (a refused cancel
 * too, rebuilt from its refusal), registrations, draining and leaving, at their recorded times (registrations of a removed group and what that
 * worker did after are dropped; added workers register before the first entry). What workers
 * report depends on where the simulation places attempts, so it is synthesized: when simulated
 * attempt n of a task is assigned, recorded attempt n of that task is replayed on the simulated
 * worker, shifted by the difference in assignment times: its start after the same delay, its
 * report ({@code AttemptSucceeded}, or {@code AttemptFailed} with the same error and
 * retryability) after the same run time. A recorded attempt that the scheduler ended instead
 * (lost with its worker, revoked) reports like the task's next reported attempt, but never
 * before its recorded lifetime has passed, so the outside event that ended it still ends it when
 * it lands where it did. An attempt beyond the recorded ones reports like the last reported one;
 * one with nothing recorded to replay runs until an outside event ends it.
 *
 * <p>Events are ordered by time, then by the recorded journal position of the event they replay
 * (synthesized reports take their recorded report's position). With no change, every event keeps
 * its recorded time and position, so the scheduler sees the recorded inputs in the recorded order
 * and makes the recorded decisions.
 */
final class Simulation {

    /** What the simulation of one pool produced: its journal, and how the fleet was changed. */
    record Result(String pool, List<JournalEntry> journal, int addedWorkers, int droppedRegistrations) {}

    private record Pending(long time, long seq, long order, SpecificRecord input, boolean synthesized) {}

    private static final Comparator<Pending> ORDER = Comparator.comparingLong(Pending::time)
            .thenComparingLong(Pending::seq).thenComparingLong(Pending::order);

    private final String pool;
    private final PoolScheduler scheduler;
    private final RecordedRuns runs;
    private final PriorityQueue<Pending> queue = new PriorityQueue<>(ORDER);
    private final Map<String, AttemptAssigned> live = new HashMap<>();
    private final List<JournalEntry> journal = new ArrayList<>();
    private long order;

    private Simulation(String pool, RecordedRuns runs) {
        this.pool = pool;
        this.scheduler = new PoolScheduler(pool, new InMemoryPoolStore());
        this.runs = runs;
    }

    /** Simulates one pool: {@code recorded} is that pool's journal, in order. */
    static Result run(String pool, List<JournalEntry> recorded, FleetChange change) {
        long[] times = JournalClock.of(recorded);
        Simulation simulation = new Simulation(pool, RecordedRuns.of(recorded, times));
        int added = simulation.addWorkers(change, times.length == 0 ? 0 : times[0]);
        int dropped = simulation.replayOutsideEvents(recorded, times, change);
        simulation.loop();
        return new Result(pool, List.copyOf(simulation.journal), added, dropped);
    }

    private int addWorkers(FleetChange change, long start) {
        int added = 0;
        long seq = Long.MIN_VALUE;
        for (FleetChange.AddWorkers add : change.added()) {
            if (!add.pool().equals(pool)) {
                continue;
            }
            for (int i = 0; i < add.count(); i++) {
                added++;
                WorkerRegistered worker = WorkerRegistered.newBuilder().setWorkerId("simulated-" + added)
                        .setPool(pool).setLabels(new HashMap<>(add.labels())).setSlots(add.slots())
                        .setRegisteredAt(Instant.ofEpochMilli(start)).build();
                queue.add(new Pending(start, seq++, order++, worker, false));
            }
        }
        return added;
    }

    private int replayOutsideEvents(List<JournalEntry> recorded, long[] times, FleetChange change) {
        Set<String> removedWorkers = new HashSet<>();
        int dropped = 0;
        for (int i = 0; i < recorded.size(); i++) {
            Object event = recorded.get(i).getEvent();
            boolean replay;
            if (event instanceof WorkerRegistered r) {
                replay = !change.removes(pool, r.getLabels());
                if (replay) {
                    removedWorkers.remove(r.getWorkerId());
                } else {
                    removedWorkers.add(r.getWorkerId());
                    dropped++;
                }
            } else if (event instanceof WorkerDraining d) {
                replay = !removedWorkers.contains(d.getWorkerId());
            } else if (event instanceof WorkerLeft l) {
                replay = !removedWorkers.contains(l.getWorkerId());
            } else if (event instanceof InputRejected r && isRefusedCancel(r)) {
                // The request itself is not journaled, only its refusal; in another fleet it may find the task running.
                event = TaskCancelRequested.newBuilder().setTaskId(r.getTaskId()).setPool(pool)
                        .setRequestedAt(Instant.ofEpochMilli(times[i])).build();
                replay = true;
            } else {
                replay = event instanceof TaskSubmitted || event instanceof TaskCancelRequested;
            }
            if (replay) {
                // A copy: the scheduler keeps and updates what it is given, and the recording must stay as it was.
                SpecificRecord input = (SpecificRecord) event;
                queue.add(new Pending(times[i], i, order++, SpecificData.get().deepCopy(input.getSchema(), input), false));
            }
        }
        return dropped;
    }

    /** A well-formed cancel refused because its task was unknown or already finished at the time. */
    private static boolean isRefusedCancel(InputRejected r) {
        return "TaskCancelRequested".equals(r.getInputType()) && r.getTaskId() != null
                && r.getCode() != RejectionCode.INVALID_ARGUMENT;
    }

    private void loop() {
        while (!queue.isEmpty()) {
            Pending next = queue.poll();
            if (next.synthesized() && !isLive(next.input())) {
                continue; // the attempt ended (lost, revoked, cancelled) before its worker would report
            }
            Instant at = Instant.ofEpochMilli(next.time());
            for (Decision decision : dispatch(next.input())) {
                if (decision.journal()) {
                    journal.add(new JournalEntry(pool, at, decision.event(), decision.cause()));
                }
                SpecificRecord event = decision.event();
                if (event instanceof AttemptAssigned a) {
                    live.put(RecordedRuns.key(a.getTaskId(), a.getAttempt()), a);
                    plan(a, next.time());
                } else if (event instanceof TaskFinished f) {
                    live.remove(RecordedRuns.key(f.getTaskId(), f.getAttempt()));
                } else if (event instanceof AttemptRevoked r) {
                    live.remove(RecordedRuns.key(r.getTaskId(), r.getAttempt()));
                }
            }
        }
    }

    /** Schedules what the worker of a just-assigned attempt will report, from the recorded runs. */
    private void plan(AttemptAssigned a, long assignedAt) {
        RecordedRuns.Run run = runs.get(a.getTaskId(), a.getAttempt());
        if (run != null && run.reported()) {
            start(a, assignedAt, run);
            report(a, assignedAt + run.reportOffset(), run);
        } else if (run != null) {
            start(a, assignedAt, run);
            RecordedRuns.Run next = run.interrupted() ? runs.nextReported(a.getTaskId(), a.getAttempt()) : null;
            if (next != null) {
                long lifetime = run.endedAt() - run.assignedAt();
                report(a, assignedAt + Math.max(lifetime + 1, run.startOffset() + next.runMs()), next);
            }
        } else {
            RecordedRuns.Run last = runs.lastReported(a.getTaskId());
            if (last != null) {
                start(a, assignedAt, last);
                report(a, assignedAt + last.reportOffset(), last);
            }
        }
    }

    private void start(AttemptAssigned a, long assignedAt, RecordedRuns.Run run) {
        AttemptStarted recorded = run.started();
        if (recorded == null) {
            return;
        }
        long at = assignedAt + run.startOffset();
        AttemptStarted started = AttemptStarted.newBuilder(recorded).setAttempt(a.getAttempt())
                .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                .setAt(shift(recorded.getAt(), at - run.startedAt())).build();
        queue.add(new Pending(at, run.startedSeq(), order++, started, true));
    }

    private void report(AttemptAssigned a, long at, RecordedRuns.Run run) {
        long shift = at - run.reportedAt();
        SpecificRecord report;
        if (run.report() instanceof AttemptSucceeded s) {
            report = AttemptSucceeded.newBuilder(s).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(shift(s.getAt(), shift)).build();
        } else {
            AttemptFailed f = (AttemptFailed) run.report();
            report = AttemptFailed.newBuilder(f).setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId())
                    .setGeneration(a.getGeneration()).setAt(shift(f.getAt(), shift)).build();
        }
        queue.add(new Pending(at, run.reportedSeq(), order++, report, true));
    }

    private static Instant shift(Instant at, long ms) {
        return at.plusMillis(ms);
    }

    private boolean isLive(SpecificRecord report) {
        String taskId;
        int attempt;
        String workerId;
        long generation;
        if (report instanceof AttemptStarted s) {
            taskId = s.getTaskId();
            attempt = s.getAttempt();
            workerId = s.getWorkerId();
            generation = s.getGeneration();
        } else if (report instanceof AttemptSucceeded s) {
            taskId = s.getTaskId();
            attempt = s.getAttempt();
            workerId = s.getWorkerId();
            generation = s.getGeneration();
        } else {
            AttemptFailed f = (AttemptFailed) report;
            taskId = f.getTaskId();
            attempt = f.getAttempt();
            workerId = f.getWorkerId();
            generation = f.getGeneration();
        }
        AttemptAssigned a = live.get(RecordedRuns.key(taskId, attempt));
        return a != null && a.getWorkerId().equals(workerId) && a.getGeneration() == generation;
    }

    private List<Decision> dispatch(SpecificRecord input) {
        if (input instanceof TaskSubmitted e) {
            return scheduler.submit(e);
        } else if (input instanceof TaskCancelRequested e) {
            return scheduler.cancel(e);
        } else if (input instanceof WorkerRegistered e) {
            return scheduler.register(e);
        } else if (input instanceof WorkerDraining e) {
            return scheduler.drain(e);
        } else if (input instanceof WorkerLeft e) {
            return scheduler.leave(e);
        } else if (input instanceof AttemptStarted e) {
            return scheduler.started(e);
        } else if (input instanceof AttemptSucceeded e) {
            return scheduler.succeeded(e);
        } else if (input instanceof AttemptFailed e) {
            return scheduler.failed(e);
        }
        throw new IllegalStateException("the simulation has no way to replay " + input.getSchema().getName());
    }
}
