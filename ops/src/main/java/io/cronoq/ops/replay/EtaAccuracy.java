package io.cronoq.ops.replay;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecast;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import io.cronoq.scheduler.policy.forecast.RunTimes;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import io.cronoq.scheduler.policy.store.WaitingQueue;
import io.cronoq.schemas.events.Journal;
import java.util.ArrayDeque;
import java.util.ArrayList;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How good start estimates are, measured on a recorded journal: each pool is re-run as recorded
 * ({@link Simulation#observe}), and at evenly spaced instants every waiting task is estimated as the
 * live system would have estimated it then — from the state at that instant and the run times the
 * journal showed until then — and later held against when the task was actually given a slot. Two
 * naive estimates are scored beside it: the task's place in its line divided by the pool's
 * throughput of the last five minutes, and the forecast run with every attempt taking its declared
 * timeout (as a scheduler that trusts declared limits would).
 */
final class EtaAccuracy {

    /** Waits shorter than this are left out of the error figure: there the error is mostly noise. */
    static final long LONG_WAIT_MS = 10_000;
    private static final long THROUGHPUT_WINDOW_MS = 300_000;

    /**
     * The scores of one way of estimating.
     *
     * @param method      its name
     * @param scored      estimates held against an actual start
     * @param inside      the share of actual starts inside [p10, p90] (NaN for a point estimate)
     * @param longWaits   scored estimates of tasks that waited over {@link #LONG_WAIT_MS}
     * @param medianError over those, the median of |estimate − actual| ÷ actual wait (no estimate counts as infinite)
     * @param given       the share of scored estimates that gave a start at all
     * @param medianBias  over the long waits with an estimate, the median of (estimate − actual) ÷ actual wait:
     *                    below 0 it tends to promise too early, above 0 too late
     */
    record Scores(String method, long scored, double inside, long longWaits, double medianError, double given,
                  double medianBias) {}

    /**
     * What one way of estimating gave, before it is summed up: how many estimates were held against a start,
     * how many of those had an interval holding it and how many gave a start at all, and over the long waits
     * each estimate's error and (where one was given) its signed error, relative to the wait.
     */
    record Tally(String method, boolean interval, long scored, long inside, long given, List<Double> errors,
                 List<Double> biases) {

        /** The two tallies of one method as one, as if measured together. */
        Tally plus(Tally other) {
            List<Double> e = new ArrayList<>(errors);
            e.addAll(other.errors);
            List<Double> b = new ArrayList<>(biases);
            b.addAll(other.biases);
            return new Tally(method, interval, scored + other.scored, inside + other.inside, given + other.given, e, b);
        }

        Scores scores() {
            double[] sorted = errors.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double[] signed = biases.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return new Scores(method, scored, interval && scored > 0 ? inside / (double) scored : Double.NaN,
                    sorted.length, median(sorted), scored == 0 ? Double.NaN : given / (double) scored, median(signed));
        }
    }

    /** What one journal's measurement found: the instants looked at, and what each method gave. */
    record Report(String workload, int instants, List<Tally> tallies) {

        /** The scores of each method, in the order measured. */
        List<Scores> methods() {
            return tallies.stream().map(Tally::scores).toList();
        }

        /**
         * Several journals' reports as one, every estimate of each counted together: a figure over many
         * looks at several realized futures, steadier than any one journal's.
         */
        static Report pooled(String workload, List<Report> reports) {
            List<Tally> tallies = new ArrayList<>(reports.get(0).tallies());
            int instants = reports.get(0).instants();
            for (Report r : reports.subList(1, reports.size())) {
                instants += r.instants();
                for (int i = 0; i < tallies.size(); i++) {
                    tallies.set(i, tallies.get(i).plus(r.tallies().get(i)));
                }
            }
            return new Report(workload, instants, List.copyOf(tallies));
        }
    }

    private record Sample(String taskId, long at, Forecast.Estimate estimate, Long naive, Forecast.Estimate declared) {}

    private EtaAccuracy() {}

    /**
     * Measures on one journal (every pool in it), looking {@code instants} times at each pool, evenly from a
     * tenth into its journal (run times to learn from) to a tenth before its end (starts to compare with).
     */
    static Report measure(String workload, List<JournalEntry> recorded, TimeRules rules, int instants,
                          Forecaster.Settings settings) {
        return measure(workload, new Workloads.Recorded(recorded, null, null), rules, instants, settings);
    }

    /**
     * Measures on a journal in the span it says to look at ({@link Workloads.Recorded}): {@code instants} looks
     * at each pool, evenly from its start to its end.
     */
    static Report measure(String workload, Workloads.Recorded recorded, TimeRules rules, int instants,
                          Forecaster.Settings settings) {
        Map<String, List<JournalEntry>> byPool = new LinkedHashMap<>();
        for (JournalEntry record : recorded.journal()) {
            for (JournalEntry entry : Journal.entries(record)) {
                byPool.computeIfAbsent(entry.getPool(), p -> new ArrayList<>()).add(entry);
            }
        }
        Forecaster forecaster = new Forecaster(rules, settings);
        Forecaster trusting = new Forecaster(rules, new Forecaster.Settings(1, settings.perLine(),
                settings.maxPlacements(), settings.horizonMs(), settings.budgetMs()));
        List<Sample> samples = new ArrayList<>();
        Map<String, Long> actual = new HashMap<>();
        for (Map.Entry<String, List<JournalEntry>> pool : byPool.entrySet()) {
            Looker looker = new Looker(pool.getKey(), JournalClock.heard(pool.getValue()), recorded.lookFrom(),
                    recorded.lookTo(), instants, forecaster, trusting, samples);
            Simulation.Result result = Simulation.observe(pool.getKey(), pool.getValue(), rules, looker);
            for (JournalEntry e : result.journal()) {
                if (e.getEvent() instanceof AttemptAssigned a) {
                    actual.putIfAbsent(pool.getKey() + "/" + a.getTaskId(), Journal.heardAt(e).toEpochMilli());
                }
            }
        }
        return new Report(workload, instants, List.of(
                score("forecast", true, samples, actual, s -> s.estimate()),
                score("position ÷ throughput", false, samples, actual,
                        s -> s.naive() == null ? null : point(s.naive())),
                score("declared limits", false, samples, actual, s -> s.declared())));
    }

    private static Forecast.Estimate point(long at) {
        java.time.Instant i = java.time.Instant.ofEpochMilli(at);
        return new Forecast.Estimate(null, i, i, i, "");
    }

    /** Tallies one method; only an {@code interval} method is scored on its [p10, p90]. */
    private static Tally score(String method, boolean interval, List<Sample> samples, Map<String, Long> actual,
                               java.util.function.Function<Sample, Forecast.Estimate> pick) {
        long scored = 0;
        long inside = 0;
        long given = 0;
        List<Double> errors = new ArrayList<>();
        List<Double> biases = new ArrayList<>();
        for (Sample s : samples) {
            Long start = actual.get(s.taskId());
            if (start == null || start < s.at()) {
                continue; // never started while the journal ran
            }
            scored++;
            Forecast.Estimate e = pick.apply(s);
            boolean known = e != null && e.known();
            if (known) {
                given++;
                long lo = e.p10().toEpochMilli();
                long hi = e.p90() == null ? Long.MAX_VALUE : e.p90().toEpochMilli();
                if (start >= lo && start <= hi) {
                    inside++;
                }
            }
            long wait = start - s.at();
            if (wait > LONG_WAIT_MS) {
                errors.add(known ? Math.abs(e.p50().toEpochMilli() - start) / (double) wait : Double.POSITIVE_INFINITY);
                if (known) {
                    biases.add((e.p50().toEpochMilli() - start) / (double) wait);
                }
            }
        }
        return new Tally(method, interval, scored, inside, given, errors, biases);
    }

    private static double median(double[] sorted) {
        return sorted.length == 0 ? Double.NaN : sorted[(sorted.length - 1) / 2];
    }

    /** Looks at one pool at its instants: estimates every waiting task three ways. */
    private static final class Looker implements Simulation.Observer {
        private final String pool;
        private final long[] times;
        private final Forecaster forecaster;
        private final Forecaster trusting;
        private final List<Sample> samples;
        private final RunTimes runTimes = new RunTimes();
        private final RunTimes nothingSeen = new RunTimes();
        private final ArrayDeque<Long> recentPlacements = new ArrayDeque<>();
        private int fed;
        /** When the pool's journal began: a throughput is over the last five minutes, or since then if later. */
        private long began = Long.MAX_VALUE;

        Looker(String pool, long[] heard, Long lookFrom, Long lookTo, int instants, Forecaster forecaster,
               Forecaster trusting, List<Sample> samples) {
            this.pool = pool;
            this.forecaster = forecaster;
            this.trusting = trusting;
            this.samples = samples;
            long first = heard.length == 0 ? 0 : heard[0];
            long last = heard.length == 0 ? 0 : heard[heard.length - 1];
            long from = lookFrom != null ? lookFrom : first + (last - first) / 10;
            long to = lookTo != null ? lookTo : last - (last - first) / 10;
            this.times = new long[heard.length == 0 ? 0 : instants];
            for (int i = 0; i < times.length; i++) {
                times[i] = from + (instants == 1 ? 0 : (to - from) * i / (instants - 1));
            }
        }

        @Override
        public long[] times() {
            return times;
        }

        @Override
        public void at(long time, InMemoryPoolStore store, List<JournalEntry> journalSoFar) {
            for (; fed < journalSoFar.size(); fed++) {
                JournalEntry e = journalSoFar.get(fed);
                began = Math.min(began, Journal.heardAt(e).toEpochMilli());
                runTimes.record(e);
                if (e.getEvent() instanceof AttemptAssigned) {
                    recentPlacements.add(Journal.heardAt(e).toEpochMilli());
                }
            }
            while (!recentPlacements.isEmpty() && recentPlacements.peekFirst() < time - THROUGHPUT_WINDOW_MS) {
                recentPlacements.pollFirst();
            }
            java.time.Instant now = java.time.Instant.ofEpochMilli(time);
            Forecast forecast = forecaster.forecast(pool, store, runTimes.lookup(pool, time), now);
            Forecast declared = trusting.forecast(pool, store, nothingSeen.lookup(pool), now);
            Map<String, Long> naive = naive(store, time);
            forecast.estimates().forEach((taskId, estimate) -> samples.add(new Sample(pool + "/" + taskId, time, estimate,
                    naive.get(taskId), declared.estimate(taskId))));
        }

        /**
         * Place in its line (one-based) ÷ the pool's placements a millisecond over the last five minutes (or
         * since the journal began, when that is less).
         */
        private Map<String, Long> naive(InMemoryPoolStore store, long time) {
            Map<String, Long> naive = new HashMap<>();
            if (recentPlacements.isEmpty()) {
                return naive;
            }
            double perMs = recentPlacements.size() / (double) Math.max(1, Math.min(THROUGHPUT_WINDOW_MS, time - began));
            store.waiting().counts().forEach((line, count) -> {
                List<WaitingQueue.Entry> entries = store.waiting().first(line, (int) Math.min(count, Integer.MAX_VALUE));
                for (int i = 0; i < entries.size(); i++) {
                    naive.put(entries.get(i).taskId(), time + Math.round((i + 1) / perMs));
                }
            });
            return naive;
        }
    }

    static String percent(double share) {
        return Double.isNaN(share) ? "—" : Double.isInfinite(share) ? "∞" : String.format(java.util.Locale.ROOT, "%.1f%%",
                share * 100);
    }

}
