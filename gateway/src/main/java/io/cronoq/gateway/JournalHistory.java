package io.cronoq.gateway;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.query.ClassKeys;
import io.cronoq.scheduler.policy.time.Retention;
import io.cronoq.scheduler.replay.JournalFold;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The recent history of every pool, per minute, folded from journal entries: at the end of each
 * minute each group's capacity (slots of ACTIVE workers), busy slots, workers, the waiting tasks
 * it could serve and since when the longest-waiting of them waits, and the waits that ended in
 * that minute (a task's wait runs from its submission, or its previous attempt's end, to its
 * assignment) as a count and their p50, p90 and p99. The same for the pool as a whole.
 *
 * <p>The interpretation of journal entries is {@link JournalFold}'s, one fold per pool; this class
 * only samples the folded state when a pool's entries cross into a new minute. It reads no clock:
 * minutes are those of the entries' {@code at}, and "now" is passed to {@link #history}. Memory is
 * bounded: per pool the newest {@code minutes + 1} samples of its groups, and the fold's live
 * state (finished tasks and departed workers leave it as their minute closes). Thread-safe.
 */
final class JournalHistory implements HistorySource {

    static final Duration BUCKET = Duration.ofMinutes(1);
    private static final long BUCKET_MS = BUCKET.toMillis();

    /** Figures of a pool or group for one minute; the wait percentiles are {@code null} when no wait ended. */
    record Figures(int capacity, int busy, int workers, long waiting, Long oldestWaitingSince, int placed,
                   Long waitP50Ms, Long waitP90Ms, Long waitP99Ms) {}

    /** One minute of a pool: its totals and its groups by key. */
    private record Sample(Figures total, Map<String, Figures> groups) {}

    private final int minutes;
    private final Map<String, PoolLine> pools = new TreeMap<>();
    private Instant since;

    /** A history keeping the last {@code minutes} minutes of every pool. */
    JournalHistory(int minutes) {
        if (minutes < 1) {
            throw new IllegalArgumentException("minutes is " + minutes + "; it must be at least 1");
        }
        this.minutes = minutes;
    }

    /** How many minutes it keeps. */
    int minutes() {
        return minutes;
    }

    /** Says from when the history is known (the time the journal was read from). */
    synchronized void since(Instant at) {
        this.since = at;
    }

    /** How long attempts of each kind held their slots lately, learnt from the same entries (for start estimates). */
    private final io.cronoq.scheduler.policy.forecast.RunTimes runTimes = new io.cronoq.scheduler.policy.forecast.RunTimes();

    /** Applies one journal entry; a pool's entries must come in journal order. */
    synchronized void apply(JournalEntry entry) {
        pools.computeIfAbsent(entry.getPool(), p -> new PoolLine()).apply(entry);
        runTimes.record(entry);
    }

    /** The run times learnt from the entries applied. */
    io.cronoq.scheduler.policy.forecast.RunTimes runTimes() {
        return runTimes;
    }

    /**
     * The last {@code count} minutes of a pool up to {@code now} (the current minute last, its
     * figures as of {@code now}), or empty when the journal named no such pool.
     */
    @Override
    public synchronized Optional<HistoryView> history(String pool, int count, Instant now) {
        if (since == null) {
            throw ApiException.unavailable("the history is being built: the gateway waits for the stores to "
                    + "answer, then reads the journal of the last " + minutes + " minutes", null);
        }
        PoolLine line = pools.get(pool);
        if (line == null) {
            return Optional.empty();
        }
        return Optional.of(line.view(pool, Math.min(count, minutes), now));
    }

    private static long minuteOf(Instant at) {
        return Math.floorDiv(at.toEpochMilli(), BUCKET_MS);
    }

    /** One pool: its fold, the minute its entries are in, and the samples of the minutes before. */
    private final class PoolLine {
        private final JournalFold fold = new JournalFold();
        private final TreeMap<Long, Sample> closed = new TreeMap<>();
        /** The labels of every group key seen in the kept minutes, so a group whose workers left keeps its line. */
        private final Map<String, SortedMap<String, String>> labels = new HashMap<>();
        /** The last minute a worker of each group was seen in. */
        private final Map<String, Long> lastSeen = new HashMap<>();
        private long openMinute = Long.MIN_VALUE;

        void apply(JournalEntry entry) {
            long minute = minuteOf(entry.getAt());
            if (openMinute == Long.MIN_VALUE) {
                openMinute = minute;
            } else if (minute > openMinute) {
                close(minute);
            }
            fold.apply(entry);
        }

        /** Samples the open minute as it ends, then lets go of what finished in it. */
        private void close(long next) {
            long start = openMinute * BUCKET_MS;
            closed.put(openMinute, sample(start, next * BUCKET_MS));
            while (closed.size() > minutes + 1) {
                closed.pollFirstEntry();
            }
            fold.tasks().values().removeIf(t -> Retention.isFinished(t.state()));
            fold.workers().removeIf(w -> w.state() == WorkerState.LEFT || w.state() == WorkerState.EVICTED);
            // A group whose workers left keeps its line while it is within the kept minutes.
            lastSeen.values().removeIf(minute -> minute < openMinute - minutes);
            labels.keySet().retainAll(lastSeen.keySet());
            openMinute = next;
        }

        /** The folded state now, with the waits that ended in {@code [fromMs, toMs)}. */
        private Sample sample(long fromMs, long toMs) {
            Map<String, Tally> groups = new LinkedHashMap<>();
            Tally total = new Tally();
            for (JournalFold.Worker w : fold.workers()) {
                if (w.slots() == 0 && w.generation() == 0) {
                    continue; // only named by an assignment whose registration came before the history
                }
                String key = ClassKeys.of(w.labels());
                labels.putIfAbsent(key, new TreeMap<>(w.labels()));
                lastSeen.put(key, Math.floorDiv(fromMs, BUCKET_MS));
                if (w.state() == WorkerState.LEFT || w.state() == WorkerState.EVICTED) {
                    continue; // gone: its group stays, without it
                }
                Tally group = groups.computeIfAbsent(key, k -> new Tally());
                int capacity = w.state() == WorkerState.ACTIVE ? w.slots() : 0;
                int busy = (int) w.running().stream().filter(name -> live(w.pool(), name)).count();
                int workers = w.state() == WorkerState.ACTIVE ? 1 : 0;
                group.add(capacity, busy, workers);
                total.add(capacity, busy, workers);
            }
            labels.keySet().forEach(key -> groups.computeIfAbsent(key, k -> new Tally()));
            for (JournalFold.Task task : fold.tasks().values()) {
                if (task.state() == TaskState.WAITING) {
                    long waitingSince = waitStart(task, task.attempts().size()).toEpochMilli();
                    total.waiting(waitingSince);
                    labels.forEach((key, groupLabels) -> {
                        if (ClassKeys.includes(groupLabels, task.labels())) {
                            groups.get(key).waiting(waitingSince);
                        }
                    });
                }
                for (int i = 0; i < task.attempts().size(); i++) {
                    JournalFold.Attempt attempt = task.attempts().get(i);
                    long assigned = attempt.assignedAt() == null ? Long.MIN_VALUE : attempt.assignedAt().toEpochMilli();
                    if (assigned >= fromMs && assigned < toMs) {
                        long wait = Math.max(0, assigned - waitStart(task, i).toEpochMilli());
                        total.placed(wait);
                        Tally group = groups.get(ClassKeys.of(attempt.group()));
                        if (group != null) {
                            group.placed(wait);
                        }
                    }
                }
            }
            Map<String, Figures> figures = new TreeMap<>();
            groups.forEach((key, tally) -> figures.put(key, tally.figures()));
            return new Sample(total.figures(), figures);
        }

        /** Whether a "task#attempt" a worker runs is an attempt the fold knows to be under way. */
        private boolean live(String pool, String attemptName) {
            JournalFold.Task task = fold.task(pool, attemptName.substring(0, attemptName.lastIndexOf('#')));
            return task != null && (task.state() == TaskState.ASSIGNED || task.state() == TaskState.RUNNING);
        }

        HistoryView view(String pool, int count, Instant now) {
            long nowMinute = minuteOf(now);
            long first = nowMinute - count + 1;
            // The minutes from the open one on have no sample yet: the fold's state is theirs.
            Map<Long, Sample> pending = new HashMap<>();
            for (long m = Math.max(first, openMinute); m <= nowMinute; m++) {
                pending.put(m, sample(m * BUCKET_MS, (m + 1) * BUCKET_MS));
            }
            List<Long> starts = new ArrayList<>(count);
            List<Sample> samples = new ArrayList<>(count);
            List<Long> ends = new ArrayList<>(count);
            for (long m = first; m <= nowMinute; m++) {
                starts.add(m * BUCKET_MS / 1000);
                ends.add(m == nowMinute ? now.toEpochMilli() : (m + 1) * BUCKET_MS);
                Sample sample = pending.get(m);
                if (sample == null) {
                    sample = closed.get(m);
                }
                if (sample == null) {
                    Map.Entry<Long, Sample> before = closed.floorEntry(m);
                    sample = before == null ? null : withoutWaits(before.getValue());
                }
                samples.add(sample);
            }
            HistoryView.Series total = series(samples, ends, Sample::total);
            List<HistoryView.GroupSeries> groups = new ArrayList<>();
            new TreeMap<>(labels).forEach((key, groupLabels) -> groups.add(new HistoryView.GroupSeries(key,
                    groupLabels, series(samples, ends, s -> s.groups().get(key)))));
            return new HistoryView(pool, now.toString(), since.toString(),
                    BUCKET.toSeconds(), starts, total, groups);
        }
    }

    /** When a task's wait before attempt {@code index} (0-based) began: submission, or the previous attempt's end. */
    private static Instant waitStart(JournalFold.Task task, int index) {
        if (index > 0) {
            JournalFold.Attempt previous = task.attempts().get(index - 1);
            if (previous.finishedAt() != null) {
                return previous.finishedAt();
            }
        }
        return task.submittedAt();
    }

    private static Sample withoutWaits(Sample sample) {
        Map<String, Figures> groups = new TreeMap<>();
        sample.groups().forEach((k, f) -> groups.put(k, stateOnly(f)));
        return new Sample(stateOnly(sample.total()), groups);
    }

    private static Figures stateOnly(Figures f) {
        return new Figures(f.capacity(), f.busy(), f.workers(), f.waiting(), f.oldestWaitingSince(), 0, null, null,
                null);
    }

    private static HistoryView.Series series(List<Sample> samples, List<Long> ends,
                                             java.util.function.Function<Sample, Figures> pick) {
        int n = samples.size();
        List<Integer> capacity = new ArrayList<>(n);
        List<Integer> busy = new ArrayList<>(n);
        List<Integer> workers = new ArrayList<>(n);
        List<Long> waiting = new ArrayList<>(n);
        List<Long> oldest = new ArrayList<>(n);
        List<Integer> placed = new ArrayList<>(n);
        List<Long> p50 = new ArrayList<>(n);
        List<Long> p90 = new ArrayList<>(n);
        List<Long> p99 = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Figures f = samples.get(i) == null ? null : pick.apply(samples.get(i));
            if (f == null) {
                f = new Figures(0, 0, 0, 0, null, 0, null, null, null);
            }
            capacity.add(f.capacity());
            busy.add(f.busy());
            workers.add(f.workers());
            waiting.add(f.waiting());
            oldest.add(f.oldestWaitingSince() == null ? null : Math.max(0, ends.get(i) - f.oldestWaitingSince()));
            placed.add(f.placed());
            p50.add(f.waitP50Ms());
            p90.add(f.waitP90Ms());
            p99.add(f.waitP99Ms());
        }
        return new HistoryView.Series(capacity, busy, workers, waiting, oldest, placed, p50, p90, p99);
    }

    /** Sums for one pool or group while a sample is taken. */
    private static final class Tally {
        private int capacity;
        private int busy;
        private int workers;
        private long waiting;
        private Long oldestWaitingSince;
        private final List<Long> waits = new ArrayList<>();

        void add(int capacity, int busy, int workers) {
            this.capacity += capacity;
            this.busy += busy;
            this.workers += workers;
        }

        void waiting(long since) {
            waiting++;
            oldestWaitingSince = oldestWaitingSince == null ? since : Math.min(oldestWaitingSince, since);
        }

        void placed(long waitMs) {
            waits.add(waitMs);
        }

        Figures figures() {
            waits.sort(null);
            return new Figures(capacity, busy, workers, waiting, oldestWaitingSince, waits.size(),
                    percentile(waits, 50), percentile(waits, 90), percentile(waits, 99));
        }
    }

    /** The nearest-rank percentile of sorted values, {@code null} for none. */
    static Long percentile(List<Long> sorted, int p) {
        if (sorted.isEmpty()) {
            return null;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
