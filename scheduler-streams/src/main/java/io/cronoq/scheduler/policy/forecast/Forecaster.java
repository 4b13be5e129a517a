package io.cronoq.scheduler.policy.forecast;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.Decision;
import io.cronoq.scheduler.policy.PoolScheduler;
import io.cronoq.scheduler.policy.RecordedPlaces;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.scheduler.policy.forecast.Forecast.Estimate;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.store.PoolStore;
import io.cronoq.schemas.events.Journal;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.StringJoiner;

/**
 * Says when each waiting task of a pool will start by running the pool forward from its present state
 * with the placement policy itself ({@link PoolScheduler}, over a copy: sharing, limits, gangs, time's
 * rules as they decide), several times: in each future every attempt holds its slot for a run time
 * drawn from what the journal saw lately ({@link RunTimes}; a running attempt for a time longer than
 * it has already run), capped by its declared timeout. The spread of a task's start over the futures
 * gives its interval. Tasks keep arriving in the futures as they did lately (per class and tenant,
 * {@link Arrivals}): steadily at the rate of the last hour's minutes bursts aside, and in bursts as
 * large as those of the last hour, on their cadence when they kept one, else as often at random; they
 * compete for slots as the policy says. What the futures do not know: when an irregular burst comes,
 * workers that come or go, retries of attempts that will fail.
 *
 * <p>A future stops when every waiting task some ACTIVE worker can run has started, at the horizon,
 * after so many placements, when its time budget is spent, or where the copy ends (a long line is
 * copied only so far); what starts later is said to be beyond the forecast. Plain Java, no clock but the budget's; the futures are fixed by their number, so a
 * forecast of the same state and run times is the same forecast.
 */
public final class Forecaster {

    /**
     * How much a forecast does.
     *
     * @param futures       how many futures it samples; the estimate's p10, p50 and p90 are the futures' starts of
     *                      rank q·(futures + 1), so that a start drawn like the futures' falls below p10 one time
     *                      in ten and above p90 one time in ten (19 futures: ranks 2, 10 and 18)
     * @param perLine       how many waiting tasks of each line it copies
     * @param maxPlacements how many placements one future makes at most
     * @param horizonMs     how far ahead a future runs at most
     * @param budgetMs      how long the whole forecast may take, spread over its futures
     */
    public record Settings(int futures, int perLine, int maxPlacements, long horizonMs, long budgetMs) {
        /** 19 futures, 20,000 tasks a line, 200,000 placements, a week ahead, two seconds. */
        public static final Settings DEFAULT = new Settings(19, 20_000, 200_000, 7L * 24 * 3_600_000, 2_000);

        public Settings {
            if (futures < 1 || perLine < 1 || maxPlacements < 1 || horizonMs < 1 || budgetMs < 1) {
                throw new IllegalArgumentException("every forecast setting must be at least 1: " + futures + " futures, "
                        + perLine + " per line, " + maxPlacements + " placements, " + horizonMs + " ms ahead, "
                        + budgetMs + " ms budget");
            }
        }
    }

    /** Effectively never: no one is evicted and no grace ends on its own in a forecast. */
    private static final long NEVER_MS = Long.MAX_VALUE / 4;

    private final TimeRules rules;
    private final Settings settings;

    public Forecaster(TimeRules rules, Settings settings) {
        this.rules = forecastRules(rules);
        this.settings = settings;
    }

    /**
     * What the forecast's scheduler runs with: the pool's rules, with no heartbeats to miss, no leave
     * grace that ends, no gang member slow to start and nothing forgotten (the futures report no
     * heartbeats and no starts, and finished tasks do not matter to them).
     */
    private static TimeRules forecastRules(TimeRules r) {
        return new TimeRules(NEVER_MS, r.reservationLeadMs(), r.deadlineLeadMs(), r.priorityStepMs(),
                r.startToleranceMs(), 0, NEVER_MS, r.gangReserveAfterMs(), r.gangReservationMs(), NEVER_MS);
    }

    /** Forecasts the starts of {@code pool}'s waiting tasks from its state in {@code state} at {@code now}. */
    public Forecast forecast(String pool, PoolStore state, RunTimes.Lookup runTimes, Instant now) {
        PoolCopy copy = PoolCopy.of(pool, state, settings.perLine());
        List<RunTimes.Stream> arrivals = arrivalsThatCanStart(copy, runTimes.arrivals(), now);
        long started = System.nanoTime();
        long budgetNanos = settings.budgetMs() * 1_000_000L;
        List<Future> futures = new ArrayList<>(settings.futures());
        for (int f = 0; f < settings.futures(); f++) {
            long left = budgetNanos - (System.nanoTime() - started);
            long share = left / (settings.futures() - f);
            futures.add(new Future(copy, runTimes, arrivals, now.toEpochMilli(), f, System.nanoTime() + share).run());
        }
        return summarize(copy, runTimes, now, futures);
    }

    /**
     * The streams whose tasks could start in a future: not those that would join their line behind the part
     * of it that was not copied, since a future stops before that part would run dry (and a task joining
     * later only ranks later). So a stream of thousands a second behind a line of a million costs nothing.
     */
    private List<RunTimes.Stream> arrivalsThatCanStart(PoolCopy copy, List<RunTimes.Stream> streams, Instant now) {
        List<RunTimes.Stream> kept = new ArrayList<>(streams.size());
        for (RunTimes.Stream stream : streams) {
            TaskSubmitted arriving = like(stream.template(), now.toEpochMilli()).build();
            if (!copy.behindTheCopy(arriving, RecordedPlaces.rankJoining(arriving, rules, now))) {
                kept.add(stream);
            }
        }
        return kept;
    }

    /** A task like {@code template} submitted at {@code at}, with none of its own times: one that arrives then. */
    private static TaskSubmitted.Builder like(TaskSubmitted template, long at) {
        return TaskSubmitted.newBuilder(template).setSubmittedAt(Instant.ofEpochMilli(at)).setNotBefore(null)
                .setStartAt(null).setDeadline(null);
    }

    // ==== one future ==============================================================================

    /**
     * What happens at {@code time} in a future: a worker's report, or a task of a steady stream arriving;
     * {@code order} keeps equal times in planning order.
     */
    private record Report(long time, long order, AttemptSucceeded report, Stream arrival) {}

    /**
     * A stream of arrivals as one future has it: the stream, at this future's rate {@code perMs}, of single
     * tasks or of bursts (each as large as one seen, drawn); or, with no rate, bursts on the cadence seen,
     * the next due at {@code due}.
     */
    private record Stream(RunTimes.Stream seen, double perMs, boolean bursts, long due) {
        Stream(RunTimes.Stream seen, double perMs, boolean bursts) {
            this(seen, perMs, bursts, 0);
        }

        boolean onCadence() {
            return perMs == 0;
        }
    }

    /**
     * The ids of tasks that arrive in a future, numbered (valid ids, as the policy checks them; should a
     * real task have one, that arrival is refused as a duplicate and the future has one arrival less).
     */
    static final String ARRIVING = "cronoq-forecast-arrival-";

    /** One sampled future of the pool, run until it stops; then its starts and positions are read. */
    private final class Future {
        private final PoolCopy copy;
        private final RunTimes.Lookup runTimes;
        /** The streams of arrivals whose tasks could start in it. */
        private final List<RunTimes.Stream> arrivalStreams;
        private final long now;
        private final long deadlineNanos;
        private final SplittableRandom random;
        private final FutureStore store;
        private final PoolScheduler scheduler;
        private final PriorityQueue<Report> reports = new PriorityQueue<>((a, b) -> a.time != b.time
                ? Long.compare(a.time, b.time) : Long.compare(a.order, b.order));
        /** Attempt key → the attempt as assigned, while its worker holds it. */
        private final Map<String, AttemptAssigned> live = new HashMap<>();
        /** Per group (its label key), how many tasks this future placed on it. */
        private final Map<String, Integer> placedOn = new HashMap<>();
        final Map<String, Long> starts = new HashMap<>();
        final Map<String, Long> positions = new HashMap<>();
        private long order;
        private int placements;
        private long arrivals;
        private final Map<DurationSketch.Durations, Double> scales = new java.util.IdentityHashMap<>();
        /** Some attempt's run time could not be drawn (nothing seen, no timeout): it holds its slot forever here. */
        boolean unfounded;
        /** Nothing more would happen: every task it did not place, nothing in this fleet ever places. */
        boolean exhausted;
        long reached;

        Future(PoolCopy copy, RunTimes.Lookup runTimes, List<RunTimes.Stream> arrivalStreams, long now, int variant,
               long deadlineNanos) {
            this.copy = copy;
            this.runTimes = runTimes;
            this.arrivalStreams = arrivalStreams;
            this.now = now;
            this.deadlineNanos = deadlineNanos;
            this.random = new SplittableRandom(0x5DEECE66DL * (variant + 1));
            this.store = copy.fresh();
            this.scheduler = new PoolScheduler(copy.pool, store, rules);
        }

        Future run() {
            for (String taskId : copy.running) {
                TaskRecord task = store.task(taskId);
                var attempt = task.getAttempts().get(task.getAttempts().size() - 1);
                long assignedAt = attempt.getAssignedAt().toEpochMilli();
                AttemptAssigned a = AttemptAssigned.newBuilder().setTaskId(taskId).setPool(copy.pool)
                        .setAttempt(attempt.getAttempt()).setWorkerId(attempt.getWorkerId())
                        .setGeneration(attempt.getGeneration()).setGroup(attempt.getGroup())
                        .setAssignedAt(attempt.getAssignedAt()).build();
                live.put(Journal.attemptKey(taskId, attempt.getAttempt()), a);
                plan(a, task.getTask(), assignedAt, Math.max(0, now - assignedAt));
            }
            long tickedAt = Long.MIN_VALUE;
            apply(scheduler.tick(Instant.ofEpochMilli(now)), now);
            for (RunTimes.Stream stream : arrivalStreams) {
                // A rate seen is known up to its noise: each future takes its own, about √count arrivals off.
                double perMs = stream.count() == 0 ? 0
                        : Math.max(0, stream.count() + Math.sqrt(stream.count()) * random.nextGaussian()) / stream.spanMs();
                if (perMs > 0) {
                    schedule(new Stream(stream, perMs, false), now);
                }
                if (stream.cadence() != null) {
                    planBurst(stream, stream.cadence().nextAt());
                    continue;
                }
                int bursts = stream.bursts().size();
                double burstsPerMs = bursts == 0 ? 0
                        : Math.max(0, bursts + Math.sqrt(bursts) * random.nextGaussian()) / stream.burstSpanMs();
                if (burstsPerMs > 0) {
                    schedule(new Stream(stream, burstsPerMs, true), now);
                }
            }
            long time = now;
            long horizon = now + settings.horizonMs();
            while (true) {
                Instant due = scheduler.nextDue();
                long tickAt = due == null ? Long.MAX_VALUE : Math.max(due.toEpochMilli(), time);
                if (tickAt == tickedAt) {
                    tickAt++; // what was due then did not move: look again a moment later
                }
                Report next = reports.peek();
                long at = Math.min(tickAt, next == null ? Long.MAX_VALUE : next.time());
                if (starts.size() == copy.waiting.size() - copy.unplaceable.size()) {
                    reached = at; // every task waiting now that can start has: what comes after does not matter
                    return this;
                }
                if (at == Long.MAX_VALUE) {
                    exhausted = true;
                    reached = Long.MAX_VALUE;
                    return this;
                }
                if (at > horizon || placements >= settings.maxPlacements() || System.nanoTime() > deadlineNanos
                        || copyRunsOut()) {
                    reached = Math.min(at, horizon);
                    return this;
                }
                time = at;
                if (next != null && next.time() <= tickAt && next.arrival() != null) {
                    reports.poll();
                    long size = next.arrival().bursts() ? next.arrival().seen().bursts()
                            .get(random.nextInt(next.arrival().seen().bursts().size())) : 1;
                    // A large burst looks at the budget every 1,024 tasks; spent, the rest is not added and the
                    // loop below stops this future.
                    for (long i = 0; i < size && (i % 1_024 != 0 || System.nanoTime() <= deadlineNanos); i++) {
                        apply(scheduler.apply(arrive(next.arrival(), at), Instant.ofEpochMilli(at)), at);
                    }
                    if (next.arrival().onCadence()) {
                        planBurst(next.arrival().seen(), next.arrival().due() + next.arrival().seen().cadence().periodMs());
                    } else {
                        schedule(next.arrival(), at);
                    }
                } else if (next != null && next.time() <= tickAt) {
                    reports.poll();
                    AttemptSucceeded r = next.report();
                    AttemptAssigned a = live.get(Journal.attemptKey(r.getTaskId(), r.getAttempt()));
                    if (a != null && a.getWorkerId().equals(r.getWorkerId()) && a.getGeneration() == r.getGeneration()) {
                        apply(scheduler.apply(r, Instant.ofEpochMilli(at)), at);
                    }
                } else {
                    tickedAt = at;
                    apply(scheduler.tick(Instant.ofEpochMilli(at)), at);
                }
            }
        }

        /**
         * This future's belief about the mean of a source's run times: the runs seen say it only up to their
         * standard error, so each future scales that source's draws by its own factor, log-normal around 1.
         */
        private double scale(RunTimes.Source source) {
            return scales.computeIfAbsent(source.durations(), d -> Math.exp(d.meanError() * random.nextGaussian()));
        }

        /** Plans the next arrival (a task, or a burst) of a stream after {@code after}: exponential gaps at its rate. */
        private void schedule(Stream stream, long after) {
            long gap = Math.max(1, Math.round(random.nextExponential() / stream.perMs()));
            reports.add(new Report(after + gap, order++, null, stream));
        }

        /**
         * Plans a burst of a stream on its cadence, due at {@code due}: it comes within the spread its gaps
         * showed of that (at once when already due).
         */
        private void planBurst(RunTimes.Stream seen, long due) {
            long spread = seen.cadence().spreadMs();
            long at = Math.max(now, due + Math.round((2 * random.nextDouble() - 1) * spread));
            reports.add(new Report(at, order++, null, new Stream(seen, 0, true, due)));
        }

        /** A task like the stream's, submitted at {@code at}: it competes for slots as the stream's tasks do. */
        private TaskSubmitted arrive(Stream stream, long at) {
            return like(stream.seen().template(), at).setTaskId(ARRIVING + (arrivals++)).build();
        }

        /** Whether a line copied short has run dry: past here this future would place as if it were empty. */
        private boolean copyRunsOut() {
            for (String line : copy.truncated) {
                if (store.waiting().first(line) == null) {
                    return true;
                }
            }
            return false;
        }

        private void apply(List<Decision> decisions, long at) {
            for (Decision d : decisions) {
                if (d.event() instanceof AttemptAssigned a) {
                    placed(a, at);
                } else if (d.event() instanceof AttemptRevoked r) {
                    live.remove(Journal.attemptKey(r.getTaskId(), r.getAttempt()));
                } else if (d.event() instanceof TaskFinished f) {
                    live.remove(Journal.attemptOf(f).key());
                }
            }
        }

        private void placed(AttemptAssigned a, long at) {
            placements++;
            String group = LabelSet.key(a.getGroup());
            TaskRecord task = store.task(a.getTaskId());
            if (copy.waiting.contains(a.getTaskId()) && !starts.containsKey(a.getTaskId())) {
                starts.put(a.getTaskId(), at);
                positions.put(a.getTaskId(), ahead(copy.usable(task.getTask()).groups()));
            }
            placedOn.merge(group, 1, Integer::sum);
            live.put(Journal.attemptKey(a.getTaskId(), a.getAttempt()), a);
            plan(a, task.getTask(), at, 0);
        }

        /** How many tasks this future placed so far on these groups (those a task can use). */
        private long ahead(Set<String> groups) {
            long ahead = 0;
            for (String group : groups) {
                ahead += placedOn.getOrDefault(group, 0);
            }
            return ahead;
        }

        /** Plans the report that ends an attempt assigned at {@code assignedAt} that has run {@code age} ms. */
        private void plan(AttemptAssigned a, TaskSubmitted task, long assignedAt, long age) {
            long runMs = runTime(task, age);
            if (runMs < 0) {
                unfounded = true;
                return; // it holds its slot beyond what this future can say
            }
            long at = Math.max(now, assignedAt + runMs);
            AttemptSucceeded report = AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(copy.pool)
                    .setAttempt(a.getAttempt()).setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration())
                    .setAt(Instant.ofEpochMilli(at)).build();
            reports.add(new Report(at, order++, report, null));
        }

        /**
         * A run time for the task, longer than {@code age}: drawn from its run times; past all of them,
         * as long again as it has run at most; capped by its timeout; its timeout when nothing was seen;
         * {@code -1} when there is nothing to go on.
         */
        private long runTime(TaskSubmitted task, long age) {
            RunTimes.Source source = runTimes.forTask(task);
            Long timeout = task.getTimeoutMs();
            long run = source == null ? -1 : Math.round(source.durations().drawAbove(age, random.nextDouble())
                    * scale(source));
            if (run < 0 && source != null && age > 0) {
                run = age + Math.round(age * random.nextDouble());
            }
            if (timeout != null && timeout > 0) {
                run = run < 0 ? timeout : Math.min(run, Math.max(timeout, age));
            }
            return run;
        }
    }

    // ==== the futures together ====================================================================

    private Forecast summarize(PoolCopy copy, RunTimes.Lookup runTimes, Instant now, List<Future> futures) {
        long reached = Long.MAX_VALUE;
        boolean exhausted = true;
        boolean unfounded = false;
        for (Future f : futures) {
            reached = Math.min(reached, f.reached);
            exhausted &= f.exhausted;
            unfounded |= f.unfounded;
        }
        Instant reachedAt = reached == Long.MAX_VALUE ? null : Instant.ofEpochMilli(reached);
        Map<String, Estimate> estimates = new HashMap<>();
        Map<RunTimes.Kind, Words> wordsByKind = new HashMap<>();
        int k = futures.size();
        long[] starts = new long[k];
        long[] positions = new long[k];
        for (String taskId : copy.waiting) {
            TaskSubmitted task = copy.tasks.get(taskId).getTask();
            // What the reason says of the task's class and tenant, worked out once for all their tasks.
            Words words = wordsByKind.computeIfAbsent(new RunTimes.Kind(Requirement.keyOf(task),
                    SharingRules.tenantOf(task.getTenant())), kind -> new Words(copy.usable(task).groups(),
                    groups(copy, task), learned(runTimes.forTask(task))));
            for (int f = 0; f < k; f++) {
                Future future = futures.get(f);
                Long start = future.starts.get(taskId);
                starts[f] = start == null ? Long.MAX_VALUE : start;
                Long position = future.positions.get(taskId);
                positions[f] = position != null ? position : future.ahead(words.groups());
            }
            Arrays.sort(starts);
            Arrays.sort(positions);
            long position = positions[(k - 1) / 2];
            Instant p10 = rank(starts, 0.1);
            Instant p50 = rank(starts, 0.5);
            Instant p90 = rank(starts, 0.9);
            String reason;
            if (p50 != null) {
                reason = position + " ahead on " + words.groupsText() + "; " + words.basis(task)
                        + (p90 == null ? "; later in some futures than the forecast reached" : "");
            } else if (copy.unplaceable.contains(taskId) || (exhausted && !unfounded)) {
                TaskRecord record = copy.tasks.get(taskId);
                reason = "no worker of the fleet as it is will take it"
                        + (record.getWaitingReason() == null ? "" : ": " + record.getWaitingReason());
            } else if (unfounded && words.unknown()) {
                reason = "no attempt in this pool has ended yet to learn run times from, and the tasks ahead declare "
                        + "no timeout";
            } else {
                reason = "at least " + position + " ahead on " + words.groupsText() + "; it starts after "
                        + (reachedAt == null ? "the forecast's end" : reachedAt.toString()) + ", beyond what the forecast reached";
            }
            estimates.put(taskId, new Estimate(position, p10, p50, p90, reason));
        }
        return new Forecast(copy.pool, now, reachedAt, k, estimates);
    }

    /**
     * What a reason says of a class and tenant: the groups its tasks can use (and in words), and the run
     * times learned for them, in words ({@code null} when none were).
     */
    private record Words(Set<String> groups, String groupsText, String learned) {

        /** Whether no run time was learned for the class and tenant. */
        boolean unknown() {
            return learned == null;
        }

        /** What the task's run times rest on: those learned, else its own declared timeout, if it has one. */
        String basis(TaskSubmitted task) {
            if (learned != null) {
                return learned;
            }
            return task.getTimeoutMs() == null ? "run times unknown" : "run times taken at the declared timeouts";
        }
    }

    /**
     * The {@code q} quantile of sorted starts as a prediction of one more start drawn like them: the one of
     * rank q·(n + 1); {@code null} when it is beyond the forecast.
     */
    static Instant rank(long[] sorted, double q) {
        int rank = (int) Math.round(q * (sorted.length + 1));
        long v = sorted[Math.max(1, Math.min(sorted.length, rank)) - 1];
        return v == Long.MAX_VALUE ? null : Instant.ofEpochMilli(v);
    }

    /** The groups a task can use, in words: "gpu=a100" or "gpu=a100, gpu=h100 (+2 more)"; "no worker" when none. */
    private static String groups(PoolCopy copy, TaskSubmitted task) {
        java.util.SortedSet<String> groups = copy.usable(task).groups();
        if (groups.isEmpty()) {
            return "no worker";
        }
        StringJoiner j = new StringJoiner(", ");
        groups.stream().limit(2).map(g -> g.isEmpty() ? "unlabeled workers" : g).forEach(j::add);
        return j + (groups.size() > 2 ? " (+" + (groups.size() - 2) + " more)" : "");
    }

    /** Run times learned, in words ("tasks of its class ran 3s–11m lately (240 runs)"); {@code null} for none. */
    private static String learned(RunTimes.Source source) {
        if (source == null) {
            return null;
        }
        return "tasks of " + source.grain() + " ran " + Durations.words(source.durations().quantile(0.1)) + "–"
                + Durations.words(source.durations().quantile(0.9)) + " lately (" + source.durations().count() + " runs)";
    }
}
