package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.forecast.DurationSketch.Durations;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.rules.SharingRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long attempts held their slots lately, learnt from the journal: from an attempt's assignment to
 * the report that ended it (a success or a failure), both on the scheduler's clock, so the time a
 * slot stayed busy. Kept per pool at three grains, each a {@link DurationSketch} that forgets with
 * a half-life: per requirement class and tenant, per class, and the whole pool. A forecast draws
 * from the finest grain that rests on enough recent runs ({@link Lookup#forTask}). Thread-safe: one
 * thread feeds it while forecasts take {@link #lookup snapshots}.
 */
public final class RunTimes {

    /** How fast old runs fade by default: their weight halves every hour. */
    public static final long DEFAULT_HALF_LIFE_MS = 3_600_000;
    /** Below this decayed weight of runs a grain is too thin, and the coarser one is used. */
    static final double ENOUGH_RUNS = 5;
    /** How many submitted tasks' classes and open attempts are remembered at most (the oldest go first). */
    private static final int REMEMBERED = 1_000_000;

    private final long halfLifeMs;
    private final Map<String, PoolSketches> pools = new HashMap<>();
    /** "pool/task" → its class and tenant, from its submission, until it finishes. */
    private final Map<String, Kind> kinds = bounded();
    /** "pool/task#attempt" → when the scheduler assigned it. */
    private final Map<String, Long> assigned = bounded();

    public RunTimes() {
        this(DEFAULT_HALF_LIFE_MS);
    }

    public RunTimes(long halfLifeMs) {
        if (halfLifeMs <= 0) {
            throw new IllegalArgumentException("halfLifeMs must be above 0, was " + halfLifeMs);
        }
        this.halfLifeMs = halfLifeMs;
    }

    /** A task's requirement class and tenant. */
    record Kind(String classKey, String tenant) {}

    /** Learns from one journal record (all the entries it carries). */
    public synchronized void record(JournalEntry record) {
        for (JournalEntry entry : Journal.entries(record)) {
            learn(entry);
        }
    }

    private void learn(JournalEntry entry) {
        String pool = entry.getPool();
        long heard = Journal.heardAt(entry).toEpochMilli();
        PoolSketches sketches = pools.computeIfAbsent(pool, k -> new PoolSketches());
        sketches.firstHeard = Math.min(sketches.firstHeard, heard);
        Object event = entry.getEvent();
        if (event instanceof TaskSubmitted t) {
            Kind kind = new Kind(Requirement.keyOf(t), SharingRules.tenantOf(t.getTenant()));
            kinds.put(pool + "/" + t.getTaskId(), kind);
            if (t.getGang() == null && (t.getAfter() == null || t.getAfter().isEmpty())) {
                sketches.arrivals.computeIfAbsent(kind, k -> new Arrivals()).submitted(t, heard);
            }
        } else if (event instanceof AttemptAssigned a) {
            assigned.put(attempt(pool, a.getTaskId(), a.getAttempt()), heard);
        } else if (event instanceof AttemptSucceeded s) {
            ended(pool, s.getTaskId(), s.getAttempt(), heard);
        } else if (event instanceof AttemptFailed f) {
            ended(pool, f.getTaskId(), f.getAttempt(), heard);
        } else if (event instanceof AttemptRevoked r) {
            assigned.remove(attempt(pool, r.getTaskId(), r.getAttempt())); // cut short: not a run time
        } else if (event instanceof TaskFinished f) {
            kinds.remove(pool + "/" + f.getTaskId());
        } else if (event instanceof TaskCancelled c) {
            kinds.remove(pool + "/" + c.getTaskId());
        } else if (event instanceof TaskForgotten f) {
            kinds.remove(pool + "/" + f.getTaskId());
        }
    }

    private void ended(String pool, String taskId, int attempt, long heard) {
        Long at = assigned.remove(attempt(pool, taskId, attempt));
        if (at == null || heard < at) {
            return; // assigned before what this learnt from began
        }
        Kind kind = kinds.get(pool + "/" + taskId);
        observe(pool, kind == null ? null : kind.classKey(), kind == null ? null : kind.tenant(), heard - at, heard);
    }

    /**
     * Counts one run of {@code durationMs} that ended at {@code atMillis} (scheduler's clock); a
     * {@code null} class or tenant counts it only at the coarser grains.
     */
    public synchronized void observe(String pool, String classKey, String tenant, long durationMs, long atMillis) {
        PoolSketches p = pools.computeIfAbsent(pool, k -> new PoolSketches());
        p.pool.add(durationMs, atMillis);
        if (classKey != null) {
            p.byClass.computeIfAbsent(classKey, k -> new DurationSketch(halfLifeMs)).add(durationMs, atMillis);
            if (tenant != null) {
                p.byClassAndTenant.computeIfAbsent(classKey + "\u0000" + tenant, k -> new DurationSketch(halfLifeMs))
                        .add(durationMs, atMillis);
            }
        }
    }

    /** A frozen copy of what is known of one pool's run times, for one forecast; no arrivals. */
    public synchronized Lookup lookup(String pool) {
        return lookup(pool, Long.MIN_VALUE);
    }

    /**
     * A frozen copy of what is known of one pool's run times, for one forecast, with the steady streams
     * of tasks arriving at {@code atMillis} (none when {@code Long.MIN_VALUE}).
     */
    public synchronized Lookup lookup(String pool, long atMillis) {
        PoolSketches p = pools.get(pool);
        if (p == null) {
            return new Lookup(Map.of(), Map.of(), null, List.of());
        }
        List<Stream> streams = new ArrayList<>();
        if (atMillis != Long.MIN_VALUE) {
            p.arrivals.values().forEach(a -> {
                Stream stream = a.stream(atMillis, p.firstHeard);
                if (stream != null) {
                    streams.add(stream);
                }
            });
        }
        Map<String, Durations> byClassAndTenant = new HashMap<>();
        p.byClassAndTenant.forEach((k, v) -> byClassAndTenant.put(k, v.snapshot()));
        Map<String, Durations> byClass = new HashMap<>();
        p.byClass.forEach((k, v) -> byClass.put(k, v.snapshot()));
        return new Lookup(byClassAndTenant, byClass, p.pool.snapshot(), streams);
    }

    /**
     * How tasks of one class and tenant arrive ({@link Arrivals}): what one looks like; steadily,
     * {@code count} in {@code spanMs} (the minutes without a burst); and in bursts, the sizes of those
     * seen, on their {@code cadence} when they keep one, else at a rate of {@code bursts.size()} in
     * {@code burstSpanMs} (the last hour).
     */
    public record Stream(TaskSubmitted template, long count, long spanMs, List<Long> bursts, long burstSpanMs,
                         Cadence cadence) {}

    /**
     * Bursts that came evenly spaced: the next is due at {@code nextAt}, then one every {@code periodMs};
     * the gaps seen strayed from the period by {@code spreadMs} at most.
     */
    public record Cadence(long nextAt, long periodMs, long spreadMs) {}

    private final class PoolSketches {
        final Map<Kind, Arrivals> arrivals = new HashMap<>();
        /** When the first entry of the pool was learnt from: minutes before it say nothing of arrivals. */
        long firstHeard = Long.MAX_VALUE;
        final DurationSketch pool = new DurationSketch(halfLifeMs);
        final Map<String, DurationSketch> byClass = new HashMap<>();
        final Map<String, DurationSketch> byClassAndTenant = new HashMap<>();
    }

    private static String attempt(String pool, String taskId, int attempt) {
        return pool + "/" + taskId + "#" + attempt;
    }

    private static <V> Map<String, V> bounded() {
        return new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > REMEMBERED;
            }
        };
    }

    /** Where a task's run times are drawn from, and in words what that rests on. */
    public record Source(Durations durations, String grain) {}

    /** One pool's run times, frozen; safe to read from any thread. */
    public static final class Lookup {
        private final Map<String, Durations> byClassAndTenant;
        private final Map<String, Durations> byClass;
        private final Durations pool;
        private final List<Stream> arrivals;

        Lookup(Map<String, Durations> byClassAndTenant, Map<String, Durations> byClass, Durations pool,
               List<Stream> arrivals) {
            this.byClassAndTenant = byClassAndTenant;
            this.byClass = byClass;
            this.pool = pool;
            this.arrivals = List.copyOf(arrivals);
        }

        /** The steady streams of tasks that keep arriving, by class and tenant. */
        public List<Stream> arrivals() {
            return arrivals;
        }

        /** {@link #forTask(String, String)} of the task's class and tenant. */
        public Source forTask(TaskSubmitted task) {
            return forTask(Requirement.keyOf(task), SharingRules.tenantOf(task.getTenant()));
        }

        /**
         * The finest grain with enough recent runs for a task of this class and tenant: its class and
         * tenant, its class, the pool; {@code null} when the pool has none at all.
         */
        public Source forTask(String classKey, String tenant) {
            Durations d = byClassAndTenant.get(classKey + "\u0000" + tenant);
            if (d != null && d.weight() >= ENOUGH_RUNS) {
                return new Source(d, "its class and tenant");
            }
            d = byClass.get(classKey);
            if (d != null && d.weight() >= ENOUGH_RUNS) {
                return new Source(d, "its class");
            }
            if (pool != null && pool.weight() > 0) {
                return new Source(pool, "the pool");
            }
            return null;
        }
    }
}
