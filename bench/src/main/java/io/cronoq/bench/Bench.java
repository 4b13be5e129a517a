package io.cronoq.bench;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One bench run end to end on a real broker: the drain phase (tasks pre-submitted, then the scheduler
 * and the workers start), the rate phase (a steady open-loop load on a running scheduler; then, with
 * {@code --backlog}, the same again with a saturated group's backlog waiting), and the Kafka Streams
 * baseline of each on the same broker, after the scheduler's so that the baseline, not cronoq, runs
 * on the warmer JVM. Every phase has its own topics and application id.
 */
public final class Bench {

    private static final Logger log = LoggerFactory.getLogger(Bench.class);
    /** How long after a rate phase is set up its first submission goes out. */
    private static final long START_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final BenchSettings settings;
    private final PrintWriter progress;
    private final Clock clock = Clock.systemUTC();
    private final String runId = "bench-" + UUID.randomUUID().toString().substring(0, 6);
    private final Workload workload;
    private Path runDir;
    private String bootstrap;
    private String where = "";
    private int recordSize;
    private final Map<String, Map<String, Double>> threadMetrics = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> logEntries = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> logBytes = new LinkedHashMap<>();
    private CpuSampler cpu;
    private GcPauses gc;

    /** A run of these settings, its progress told on {@code progress}. */
    public Bench(BenchSettings settings, PrintWriter progress) {
        this.settings = settings;
        this.progress = progress;
        this.workload = new Workload(runId, settings.pools(), settings.groups(), settings.workers(), settings.slots(),
                settings.partitions(), new BenchTenants(settings.tenants()));
    }

    /** Runs every phase the settings ask for and returns the figures. */
    public BenchReport run() {
        double[] loadBefore = ProcessMemory.loadAverage();
        try {
            runDir = Files.createTempDirectory(settings.dataRoot(), "cronoq-bench");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory: " + e.getMessage(), e);
        }
        cpu = CpuSampler.start();
        gc = GcPauses.start();
        try (BenchBroker broker = BenchBroker.start(settings.bootstrap(), runDir)) {
            bootstrap = broker.bootstrap();
            step("Kafka at " + bootstrap + (broker.embedded() ? " (embedded, in this JVM)" : ""));
            BenchReport.Drain drain = null;
            Baseline.DrainResult baselineDrain = null;
            BenchReport.Memory afterDrain = null;
            if (settings.warmupDrain() > 0) {
                int rounds = settings.warmupRounds();
                long each = settings.warmupDrainEach();
                for (int round = 1; round <= rounds; round++) {
                    step(String.format(java.util.Locale.ROOT, "JVM warm-up, round %d of %d: an unmeasured drain of "
                            + "%,d tasks on topics of its own", round, rounds, each));
                    drainPhase(each, round == 1 ? "warmup" : "warmup-" + round);
                }
            }
            if (settings.warmsUpAtRate()) {
                step(String.format(java.util.Locale.ROOT, "JVM warm-up: %d s unmeasured at %,d tasks/s on topics of "
                        + "their own", settings.warmupAtRateS(), settings.rate()));
                ratePhase("warmup-rate");
            }
            if (settings.warmsUp()) {
                settleJit("JVM warm-up");
            }
            if (settings.drain() > 0) {
                DrainOutcome outcome = drainPhase(settings.drain(), "drain");
                drain = outcome.drain();
                afterDrain = outcome.memory();
                if (settings.baseline()) {
                    long records = settings.baselineRecords();
                    step(String.format(java.util.Locale.ROOT, "Baseline: drain of %,d records", records));
                    baselineDrain = baseline().drain(records, drainTimeout(records));
                    String prefix = runId + "-baseline-drain";
                    logEntries.put(BenchReport.BASELINE_PER_RECORD,
                            LogVolume.per(LogVolume.of(bootstrap, prefix), records));
                    logBytes.put(BenchReport.BASELINE_PER_RECORD,
                            LogVolume.per(LogVolume.bytesOf(bootstrap, prefix), records));
                    step(String.format(java.util.Locale.ROOT, "Baseline: %,.0f records/s", baselineDrain.perSecond()));
                }
            }
            RateOutcome rate = settings.rate() > 0 ? ratePhase("rate") : null;
            Baseline.RateResult baselineRate = null;
            if (rate != null && settings.baseline()) {
                step("Baseline: " + settings.rate() + " records/s");
                baselineRate = baseline().rate(settings.rate(), settings.warmupS(), settings.durationS(), rateTimeout());
            }
            return new BenchReport(settings, where, recordSize, loadBefore, ProcessMemory.loadAverage(), drain,
                    baselineDrain, rate == null ? null : rate.empty(), baselineRate,
                    rate == null ? null : rate.backlog(), rate == null ? afterDrain : rate.memoryEmpty(),
                    rate == null ? null : rate.memoryBacklog(), threadMetrics, logEntries, logBytes);
        } finally {
            if (settings.bootstrap() != null && bootstrap != null) {
                BenchTopics.deleteAll(bootstrap, runId);
            }
            deleteQuietly(runDir);
            if (cpu != null) {
                cpu.close();
            }
            if (gc != null) {
                gc.close();
            }
        }
    }

    private record DrainOutcome(BenchReport.Drain drain, BenchReport.Memory memory) {}

    private record RateOutcome(BenchReport.Rate empty, BenchReport.Memory memoryEmpty, BenchReport.Rate backlog,
                               BenchReport.Memory memoryBacklog) {}

    /** A drain of {@code n} tasks on the topics of {@code phase}; only the "drain" phase records its metrics. */
    private DrainOutcome drainPhase(long n, String phase) {
        boolean measured = phase.equals("drain");
        String label = measured ? "Drain" : "Warm-up drain";
        SchedulerConfig config = config(phase);
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = SchedulerApp.topics(config, registry);
        TopicSetup.ensure(config, topics);
        try (Fleet workers = fleet(config, topics);
             KafkaProducer<String, byte[]> producer = BenchClients.producer(bootstrap)) {
            String prefix = runId + "-" + phase;
            Map<String, Long> entriesBefore = Map.of();
            Map<String, Long> bytesBefore = Map.of();
            if (settings.tenants() > 1) {
                takeInSharingPolicy(config, topics, producer, phase, label);
                if (measured) {
                    entriesBefore = LogVolume.of(bootstrap, prefix);
                    bytesBefore = LogVolume.bytesOf(bootstrap, prefix);
                }
            }
            if (!settings.stored()) {
                workers.register(workload.registrations(clock.instant()));
            }
            step(label + ": pre-submitting " + n + " tasks");
            AtomicLong failures = new AtomicLong();
            boolean fan = measured && settings.fanIn();
            Pacer.burst(0, n, (i, stamp) -> submit(producer, topics, fan ? workload.fanTask(i, n, stamp, clock.instant())
                    : workload.task(i, stamp, clock.instant()), failures, null));
            producer.flush();
            checkSent(failures);
            try (JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry)) {
                step(label + ": starting the scheduler (" + settings.workers() + " " + fleetName() + ")");
                try (SchedulerUnderTest scheduler = startScheduler(config, phase)) {
                    scheduler.awaitRunning(Duration.ofSeconds(120));
                    if (settings.stored()) {
                        awaitTakenIn(config, topics, drainTimeout(n), "the submissions");
                        if (measured) {
                            settleJit(label);
                        }
                        step(label + ": " + n + " tasks stored; the workers join");
                        workers.register(workload.registrations(clock.instant()));
                    }
                    // Timed from the moment the scheduler runs, taking in the submissions included; or, for stored
                    // tasks, from the moment the workers join.
                    long start = System.nanoTime();
                    try {
                        Waits.until(() -> journal.succeeded().count() >= n, drainTimeout(n), n + " tasks to finish");
                    } catch (Waits.BenchTimeoutException e) {
                        throw new Waits.BenchTimeoutException(e.getMessage() + " (" + journal.succeeded().count()
                                + " finished, " + workers.placements().count() + " placed)");
                    }
                    Window finished = journal.succeeded();
                    // RUNNING is polled: a small drain may have begun finishing before it was seen.
                    start = Math.min(start, finished.firstNanos());
                    if (workers.placements().count() > 0) {
                        start = Math.min(start, workers.placements().firstNanos());
                    }
                    Double cpuMs = cpu == null || settings.fork() ? null
                            : cpu.cpuSecondsBetween(start, finished.lastNanos()) * 1000 / finished.count();
                    Map<String, Double> cpuParts = cpu == null || settings.fork() ? null : CpuSampler.perItemMs(
                            cpu.cpuSecondsByPartBetween(start, finished.lastNanos()), finished.count());
                    BenchReport.Drain drain = new BenchReport.Drain(n, workers.placements().perSecondSince(start),
                            finished.perSecondSince(start), (finished.lastNanos() - start) / 1e9, cpuMs, cpuParts,
                            finished.perSecondBetween(0, n / 10),
                            finished.perSecondBetween(n - n / 10, n - 1));
                    BenchReport.Memory memory = null;
                    if (measured) {
                        threadMetrics.put("drain", scheduler.threadMetrics());
                        // Less what taking in the sharing policy wrote (nothing with one tenant): what the tasks cost.
                        logEntries.put(BenchReport.DRAIN_PER_TASK,
                                LogVolume.per(LogVolume.since(LogVolume.of(bootstrap, prefix), entriesBefore), n));
                        logBytes.put(BenchReport.DRAIN_PER_TASK,
                                LogVolume.per(LogVolume.since(LogVolume.bytesOf(bootstrap, prefix), bytesBefore), n));
                        memory = scheduler.memory(0);
                    }
                    step(String.format(java.util.Locale.ROOT, "%s: %,.0f placements/s, %,.0f tasks/s full lifecycle",
                            label, drain.placementsPerSecond(), drain.lifecyclePerSecond()));
                    return new DrainOutcome(drain, memory);
                }
            }
        } finally {
            registry.close();
        }
    }

    /**
     * The rate phase on the topics of {@code phase}: "rate" measures it (and then the backlog, if asked); any other
     * phase runs {@link BenchSettings#warmupAtRateS()} seconds at the rate unmeasured and returns {@code null}.
     */
    private RateOutcome ratePhase(String phase) {
        boolean measured = phase.equals("rate");
        String label = measured ? "Rate" : "Warm-up at the rate";
        SchedulerConfig config = config(phase);
        SchemaRegistry registry = SchedulerApp.registry(config);
        Topics topics = SchedulerApp.topics(config, registry);
        TopicSetup.ensure(config, topics);
        // Stamped by the broker as it appends them, the assignments tell the time in the log from the time to commit.
        BenchTopics.stampAtAppend(bootstrap, topics.assignments().name());
        step(label + ": starting the scheduler and " + settings.workers() + " " + fleetName());
        try (SchedulerUnderTest scheduler = startScheduler(config, phase);
             Fleet workers = fleet(config, topics);
             JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry);
             KafkaProducer<String, byte[]> producer = BenchClients.producer(bootstrap)) {
            scheduler.awaitRunning(Duration.ofSeconds(120));
            if (settings.tenants() > 1) {
                // Keyed by pool on the submissions topic, so each pool's policy is ahead of its tasks; waiting until
                // the scheduler has committed it, before the workers join, keeps taking it in out of the warm-up and
                // the measured seconds.
                int changes = sendSharingPolicy(producer, topics);
                awaitTakenIn(config, topics, drainTimeout(changes), "the sharing policy");
                step(label + ": the sharing policy of " + settings.tenants() + " tenants taken in");
            }
            var registrations = workload.registrations(clock.instant());
            workers.register(registrations);
            Waits.until(() -> workers.accepted(registrations.stream().map(r -> r.getWorkerId()).toList()),
                    Duration.ofSeconds(120), "the " + fleetName() + " to be accepted");
            AtomicLong sent = new AtomicLong();
            if (!measured) {
                runAtRate(label, System.nanoTime() + START_DELAY_NANOS, topics, producer, journal, sent,
                        settings.warmupAtRateS(), 0, null);
                return null;
            }
            BenchReport.Rate empty = measureRate("Rate", topics, producer, workers, journal, sent);
            threadMetrics.put("rate", scheduler.threadMetrics());
            BenchReport.Memory memoryEmpty = scheduler.memory(0);
            if (settings.backlog() == 0) {
                return new RateOutcome(empty, memoryEmpty, null, null);
            }
            loadBacklog(config, topics, producer, workers);
            BenchReport.Memory memoryBacklog = scheduler.memory(settings.backlog());
            BenchReport.Rate backlog = measureRate("Rate with backlog", topics, producer, workers, journal, sent);
            threadMetrics.put("backlog rate", scheduler.threadMetrics());
            return new RateOutcome(empty, memoryEmpty, backlog, memoryBacklog);
        } finally {
            registry.close();
        }
    }

    private BenchReport.Rate measureRate(String label, Topics topics, KafkaProducer<String, byte[]> producer,
                                         Fleet workers, JournalWatcher journal, AtomicLong sent) {
        settleJit(label);
        long start = System.nanoTime() + START_DELAY_NANOS;
        long measuredFrom = start + TimeUnit.SECONDS.toNanos(settings.warmupS());
        // Worker agents do not say when an assignment was appended, so only simulated workers' tasks have hops.
        Hops hops = settings.agents() ? null : new Hops(sent.get() + (long) settings.rate() * settings.warmupS(),
                Math.toIntExact((long) settings.rate() * settings.durationS()), workload::indexOf);
        workers.measureFrom(measuredFrom, hops);
        journal.watchAssignments(hops == null ? null : hops::heard);
        Pacer.Lateness late = runAtRate(label, start, topics, producer, journal, sent, settings.warmupS(),
                settings.durationS(), hops);
        journal.watchAssignments(null);
        Latency.Summary latency = workers.latency().summary();
        step(String.format(java.util.Locale.ROOT, "%s: p50 %.1f ms, p99 %.1f ms", label, latency.p50(), latency.p99()));
        Double cores = cpu == null || settings.fork() ? null
                : cpu.coresBusyOver(measuredFrom, settings.durationS());
        GcPauses.Summary pauses = settings.fork() ? null : gc.over(measuredFrom, settings.durationS());
        return new BenchReport.Rate(settings.rate(), latency, workers.placements().perSecond(), journal.succeeded().perSecond(),
                late.lastNanos() / 1e6, late.worstNanos() / 1e6,
                late.worstDueNanos() < 0 ? -1 : (late.worstDueNanos() - measuredFrom) / 1e9, cores, pauses,
                hops == null ? null : hops.summary());
    }

    /**
     * Submits at the rate for {@code warmupS + durationS} seconds, open loop, from {@code start} (by
     * {@link System#nanoTime()}), and waits until every task sent has finished; returns how late the pacer sent
     * (the latest of the tasks due after the warm-up). {@code hops}, when not null, is told when each submission was
     * acknowledged.
     */
    private Pacer.Lateness runAtRate(String label, long start, Topics topics, KafkaProducer<String, byte[]> producer,
                           JournalWatcher journal, AtomicLong sent, int warmupS, int durationS, Hops hops) {
        int rate = settings.rate();
        long total = (long) rate * (warmupS + durationS);
        journal.reset();
        step(durationS == 0
                ? String.format(java.util.Locale.ROOT, "%s: %,d tasks/s for %d s, unmeasured", label, rate, warmupS)
                : String.format(java.util.Locale.ROOT, "%s: %,d tasks/s for %d s + %d s warm-up", label, rate,
                        durationS, warmupS));
        AtomicLong failures = new AtomicLong();
        Pacer.Lateness late = Pacer.run(sent.get(), total, rate, start, start + TimeUnit.SECONDS.toNanos(warmupS),
                (i, stamp) -> submit(producer, topics, workload.task(i, stamp, clock.instant()), failures,
                        hops == null ? null : () -> hops.acked(i, System.nanoTime())));
        sent.addAndGet(total);
        producer.flush();
        checkSent(failures);
        Waits.until(() -> journal.succeeded().count() >= total, rateTimeout(),
                "the " + total + " tasks sent at " + rate + "/s to finish");
        return late;
    }

    /** Waits up to {@code --jit-wait} for the JIT to go quiet ({@link JitQuiet}), and says what it found. */
    private void settleJit(String label) {
        if (settings.jitWaitS() > 0) {
            step(label + ": " + JitQuiet.await(Duration.ofSeconds(settings.jitWaitS())).describe());
        }
    }

    private void loadBacklog(SchedulerConfig config, Topics topics, KafkaProducer<String, byte[]> producer,
                             Fleet workers) {
        long n = settings.backlog();
        String worker = workload.backlogWorkerId();
        workers.hold(worker);
        workers.register(List.of(workload.backlogWorker(clock.instant())));
        Waits.until(() -> workers.accepted(List.of(worker)), Duration.ofSeconds(60), "the backlog's worker to be accepted");
        step(String.format(java.util.Locale.ROOT, "Backlog: %,d tasks for a saturated group", n));
        AtomicLong failures = new AtomicLong();
        Pacer.burst(0, n, (i, stamp) -> submit(producer, topics, workload.backlogTask(i, stamp, clock.instant()), failures,
                null));
        producer.flush();
        checkSent(failures);
        awaitTakenIn(config, topics, Duration.ofSeconds(Math.max(300, n / 500)), "the backlog");
        step("Backlog: taken in");
    }

    /**
     * Has a scheduler of this phase take in every pool's sharing policy before the drain, so that the drain, timed
     * as with one tenant, measures the tasks alone.
     *
     * <p>Each change is keyed by its pool on the submissions topic, as the gateway and {@code cronoq tenants set}
     * send it and as the pool's tasks are, and is sent before them by the same producer (one request in flight), so
     * on every partition the scheduler reads a pool's policy before the pool's first task. That ordering alone would
     * do for a {@code --stored} drain, timed once every submission is taken in, but not for a drain that takes its
     * submissions in, timed from the scheduler's start: taking in the policy (up to {@link BenchTenants#MAX} changes
     * per pool) would be timed with it. So a scheduler starts first with the policy alone on its input, takes it in
     * (its committed offsets reach the end of the submissions topic) and stops; the drain's tasks are sent after, and
     * the drain's scheduler starts on that state, for either kind of drain alike.
     */
    private void takeInSharingPolicy(SchedulerConfig config, Topics topics, KafkaProducer<String, byte[]> producer,
                                     String phase, String label) {
        int changes = sendSharingPolicy(producer, topics);
        step(String.format(java.util.Locale.ROOT, "%s: the sharing policy of %,d tenants (%,d changes) sent; "
                + "a scheduler takes it in before the tasks are sent", label, settings.tenants(), changes));
        try (SchedulerUnderTest scheduler = startScheduler(config, phase)) {
            scheduler.awaitRunning(Duration.ofSeconds(120));
            awaitTakenIn(config, topics, drainTimeout(changes), "the sharing policy");
        }
        step(label + ": the sharing policy taken in");
    }

    /**
     * Sends every pool's sharing policy for the tenants on the submissions topic, keyed by pool, without waiting for
     * each change: the producer batches them and one flush waits for all. Returns how many changes it sent.
     */
    private int sendSharingPolicy(KafkaProducer<String, byte[]> producer, Topics topics) {
        String topic = topics.submissions().name();
        var serializer = topics.submissions().valueSerde().serializer();
        List<SharingPolicySet> changes = workload.sharingPolicies(clock.instant());
        AtomicLong failures = new AtomicLong();
        for (SharingPolicySet change : changes) {
            byte[] value = serializer.serialize(topic, new SubmissionEvent(change));
            send(producer, new ProducerRecord<>(topic, change.getPool(), value), failures, "sharing policy change", null);
        }
        producer.flush();
        checkSent(failures, "sharing policy changes");
        return changes.size();
    }

    /** Waits until the scheduler of {@code config} has committed every submission on its topic: it holds them all. */
    private void awaitTakenIn(SchedulerConfig config, Topics topics, Duration timeout, String what) {
        String appId = config.get(SchedulerConfig.APPLICATION_ID);
        Waits.until(() -> InputLag.of(bootstrap, appId, topics.submissions().name()) == 0, timeout,
                "the scheduler to take in " + what);
    }

    private Baseline baseline() {
        Properties props = SchedulerApp.streamsProperties(config("baseline"));
        return new Baseline(bootstrap, props, runId + "-baseline", settings.partitions(), recordSize, workload, runDir,
                cpu, gc, () -> settleJit("Baseline"));
    }

    /** The workers of a phase on the topics of {@code config}: simulated ones, or real agents. */
    private Fleet fleet(SchedulerConfig config, Topics topics) {
        if (settings.agents()) {
            return AgentFleet.start(bootstrap, config.get(SchedulerConfig.TOPIC_PREFIX), settings.runMs());
        }
        return SimulatedWorkers.start(bootstrap, topics, settings.runMs(), settings.startReportDelayMs());
    }

    private String fleetName() {
        return settings.agents() ? "worker agents" : "simulated workers";
    }

    private SchedulerUnderTest startScheduler(SchedulerConfig config, String phase) {
        SchedulerUnderTest scheduler = SchedulerUnderTest.start(config, settings.fork(),
                runDir.resolve("scheduler-" + phase + ".log"));
        where = scheduler.where();
        return scheduler;
    }

    private SchedulerConfig config(String phase) {
        Map<String, String> values = new HashMap<>(settings.scheduler());
        values.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap);
        values.put(SchedulerConfig.TOPIC_PREFIX.name(), runId + "-" + phase + ".");
        values.put(SchedulerConfig.APPLICATION_ID.name(), runId + "-" + phase);
        values.put(SchedulerConfig.STATE_DIR.name(), runDir.resolve("state-" + phase).toString());
        values.put(SchedulerConfig.PARTITIONS.name(), String.valueOf(settings.partitions()));
        values.put(SchedulerConfig.COMMIT_INTERVAL_MS.name(), String.valueOf(settings.commitMs()));
        if (settings.retentionMs() != null) {
            values.put(SchedulerConfig.TASK_RETENTION_MS.name(), String.valueOf(settings.retentionMs()));
        }
        return SchedulerConfig.of(values);
    }

    /** Sends {@code task}'s submission; {@code onAck}, when not null, runs once the broker acknowledged it. */
    private void submit(KafkaProducer<String, byte[]> producer, Topics topics, TaskSubmitted task, AtomicLong failures,
                        Runnable onAck) {
        String topic = topics.submissions().name();
        byte[] value = topics.submissions().valueSerde().serializer().serialize(topic, new SubmissionEvent(task));
        if (recordSize == 0) {
            recordSize = value.length;
        }
        send(producer, new ProducerRecord<>(topic, task.getPool(), value), failures, "task", onAck);
    }

    /**
     * Sends {@code record} without waiting, counting a failure in {@code failures} and logging the first; runs
     * {@code onAck} (when not null) once the broker acknowledged the record.
     */
    private static void send(KafkaProducer<String, byte[]> producer, ProducerRecord<String, byte[]> record,
                             AtomicLong failures, String what, Runnable onAck) {
        producer.send(record, (meta, error) -> {
            if (error != null) {
                if (failures.getAndIncrement() == 0) {
                    log.warn("Could not send a {}: {}", what, error.toString());
                }
            } else if (onAck != null) {
                onAck.run();
            }
        });
    }

    private static void checkSent(AtomicLong failures) {
        checkSent(failures, "submissions");
    }

    private static void checkSent(AtomicLong failures, String what) {
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " " + what + " could not be sent; see the log");
        }
    }

    /** Long enough for a drain of {@code n} at 100 tasks/s. */
    private static Duration drainTimeout(long n) {
        return Duration.ofSeconds(Math.max(180, n / 100));
    }

    /** Long enough for a rate the scheduler cannot keep up with to drain at 100 tasks/s. */
    private Duration rateTimeout() {
        int seconds = Math.max(settings.warmupS() + settings.durationS(), settings.warmupAtRateS());
        long tasks = (long) settings.rate() * seconds;
        return Duration.ofSeconds(Math.max(120 + seconds, tasks / 100));
    }

    private void step(String message) {
        progress.println("… " + message);
        progress.flush();
        log.info(message);
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete {}: {}", dir, e.toString());
        }
    }
}
