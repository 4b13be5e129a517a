package io.cronoq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * What one {@code cronoq bench} run does: the fleet (pools, groups, workers, slots; simulated or real
 * agents), the load (a drain of pre-submitted tasks, a steady rate, a backlog for a saturated group),
 * the scheduler's settings that the baseline copies, and the baseline's own drain. Validated at
 * construction, naming the flag at fault.
 *
 * @param pools              pools the tasks and workers spread over
 * @param groups             groups (label sets) per pool
 * @param workers            workers in all, spread over every group of every pool
 * @param slots              slots of each worker
 * @param runMs              how long an attempt runs (0: it succeeds the moment it arrives)
 * @param drain              tasks pre-submitted before the scheduler starts, then drained (0: no drain phase)
 * @param warmupDrain        tasks of an unmeasured drain first, on topics of its own, so the measured phases run on a
 *                           JVM whose JIT has compiled the hot paths (0: none)
 * @param warmupRounds       how many drains the warm-up drain is split into, each a scheduler on topics of its own:
 *                           a phase change throws away code compiled before it, and a later round compiles it again
 * @param warmupAtRateS      with a rate phase, seconds at the rate unmeasured, on topics of their own, after the warm-up
 *                           drain: what a steady rate runs (small produce and fetch requests, short polls) is not what
 *                           a drain runs, and the JIT compiles it in the first half-minute at a rate (0: none)
 * @param jitWaitS           before each measured part, at most this many seconds of waiting for the JIT to go quiet
 *                           ({@link JitQuiet}); 0: no wait
 * @param rate               steady submissions per second, open loop (0: no rate phase)
 * @param durationS          length of the measured part of the rate phase, in seconds
 * @param warmupS            unmeasured seconds at the same rate before it
 * @param backlog            tasks pre-loaded for a saturated group before the rate phase is run again (0: none)
 * @param commitMs           the scheduler's (and the baseline's) commit interval
 * @param partitions         partitions of every topic
 * @param bootstrap          an external Kafka, or {@code null} for an embedded broker in a temporary directory
 * @param dataDir            the directory the run's temporary directory is made in (the embedded broker's logs, the
 *                           schedulers' and the baseline's state), or {@code null} for the system's temporary directory
 * @param fork               run the scheduler in a child JVM, so its memory is its own
 * @param baseline           also measure the Kafka Streams baseline
 * @param baselineRecords    records of the baseline's drain, whatever the scheduler's drain is
 * @param retentionMs        how long the scheduler keeps a finished task before it forgets it (0: forever, as the
 *                           scheduler's own setting), or {@code null} for the scheduler's default
 * @param agents             run the fleet as real worker agents ({@code CronoqWorker}) instead of simulated workers
 * @param startReportDelayMs how long a simulated worker holds back {@code AttemptStarted} (an attempt that ends
 *                           within it is reported by its success alone); 0 sends it at once
 * @param stored     a drain of stored tasks: the workers join once the scheduler has taken in every submission,
 *                   and the drain is timed from then (as a database scheduler drains rows inserted before)
 * @param tenants    tenants sharing each pool ({@link BenchTenants}): task {@code k} runs for tenant {@code k mod
 *                   tenants}, and each pool's sharing policy is set before the measured part; 1: the tasks name no
 *                   tenant and no policy is set
 * @param fanIn      the drain is one fan-out and fan-in of dependent tasks
 * @param scheduler  further scheduler settings ({@code cronoq.*} keys) for the scheduler under test, e.g. to compare
 *                   two values of one; the ones the bench sets from its own flags are refused, naming the flag
 */
public record BenchSettings(int pools, int groups, int workers, int slots, long runMs, long drain, long warmupDrain,
                            int warmupRounds, int warmupAtRateS, int jitWaitS, int rate, int durationS, int warmupS,
                            long backlog, int commitMs, int partitions,
                            String bootstrap, Path dataDir, boolean fork, boolean baseline, long baselineRecords,
                            Long retentionMs,
                            boolean agents, long startReportDelayMs, boolean stored, int tenants, boolean fanIn,
                            Map<String, String> scheduler) {

    /**
     * What an assignment→completion cycle costs a slot besides the run time, beyond one commit interval:
     * the worker's answer and the scheduler's reading of it (about 25 ms in all at the default 20 ms commit).
     */
    static final long CYCLE_OVERHEAD_MS = 5;

    /** The scheduler settings the bench sets itself, each with the flag that sets it (or says why it cannot be set). */
    private static final Map<String, String> BENCH_FLAGS = Map.of(
            "cronoq.bootstrap.servers", "--bootstrap",
            "cronoq.topic.prefix", "nothing: each phase has topics of its own",
            "cronoq.application.id", "nothing: each phase has an application of its own",
            "cronoq.state.dir", "nothing: the bench keeps state in its run directory",
            "cronoq.partitions", "--partitions",
            "cronoq.commit.interval.ms", "--commit-ms (the baseline commits as often)",
            "cronoq.task.retention.ms", "--retention-ms");

    /** The directory the run's own temporary directory is made in: {@code dataDir}, or the system's. */
    public Path dataRoot() {
        return dataDir != null ? dataDir : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Where the run keeps its data, and on what kind of file system (a disk's, or tmpfs in memory). */
    public String dataPlace() {
        Path dir = dataRoot();
        try {
            return dir + " (" + Files.getFileStore(dir).type() + ")";
        } catch (IOException e) {
            return dir.toString();
        }
    }

    /** Checks every value; an {@link IllegalArgumentException} names the flag and the fix. */
    public BenchSettings {
        atLeast("--pools", pools, 1);
        atLeast("--groups", groups, 1);
        atLeast("--slots", slots, 1);
        atLeast("--run-ms", runMs, 0);
        atLeast("--drain", drain, 0);
        if (fanIn && drain > 0 && (drain < 3 || drain > io.cronoq.schemas.rules.Rules.MAX_PARENTS + 2)) {
            throw new IllegalArgumentException("--fan-in needs --drain of 3 to " + (io.cronoq.schemas.rules.Rules.MAX_PARENTS + 2)
                    + " tasks: one source, the shards, and one reducer waiting for every shard");
        }
        atLeast("--warmup-drain", warmupDrain, 0);
        atLeast("--warmup-rounds", warmupRounds, 1);
        atLeast("--warmup-at-rate", warmupAtRateS, 0);
        atLeast("--jit-wait", jitWaitS, 0);
        atLeast("--rate", rate, 0);
        atLeast("--duration", durationS, 1);
        atLeast("--warmup", warmupS, 0);
        atLeast("--backlog", backlog, 0);
        atLeast("--commit-ms", commitMs, 1);
        atLeast("--partitions", partitions, 1);
        atLeast("--baseline-records", baselineRecords, 1);
        atLeast("--start-report-delay-ms", startReportDelayMs, 0);
        atLeast("--tenants", tenants, 1);
        atMost("--tenants", tenants, BenchTenants.MAX);
        if (retentionMs != null) {
            atLeast("--retention-ms", retentionMs, 0);
        }
        if (dataDir != null && !(Files.isDirectory(dataDir) && Files.isWritable(dataDir))) {
            throw new IllegalArgumentException("--data-dir " + dataDir + " is not a directory this user can write to: "
                    + "create it, or give another (such as /dev/shm, to keep the run's data in memory)");
        }
        if (workers < pools * groups) {
            throw new IllegalArgumentException("--workers is " + workers + "; every group of every pool needs a worker, "
                    + "so give at least --pools x --groups = " + pools * groups);
        }
        if (drain == 0 && rate == 0) {
            throw new IllegalArgumentException("nothing to measure: give --drain N, --rate N or both");
        }
        scheduler = Map.copyOf(scheduler);
        scheduler.forEach((key, value) -> {
            String flag = BENCH_FLAGS.get(key);
            if (flag != null) {
                throw new IllegalArgumentException("--set " + key + " is the bench's own; use " + flag + " instead");
            }
        });
        io.cronoq.scheduler.config.SchedulerConfig.of(scheduler); // an unknown key or a bad value is named now, not later
        if (backlog > 0 && rate == 0) {
            throw new IllegalArgumentException("--backlog compares placement latency at a steady rate with and without "
                    + "the backlog; give --rate too");
        }
    }

    /**
     * Tasks of each warm-up round. A drain's first phase change (taking in, then placing; one scheduler closing, the
     * next starting) hits paths its compiled code never saw, and the JVM throws that code away ("unstable_if",
     * "class_check" deoptimizations) and compiles it again; with one round that happened during the measured drain.
     */
    public long warmupDrainEach() {
        return Math.max(1, warmupDrain / warmupRounds);
    }

    /** Whether the run warms up at the rate before its rate phase. */
    public boolean warmsUpAtRate() {
        return rate > 0 && warmupAtRateS > 0;
    }

    /** Whether the run warms its JVM up at all before the measured phases. */
    public boolean warmsUp() {
        return warmupDrain > 0 || warmsUpAtRate();
    }

    /** Total slots of the fleet. */
    public long totalSlots() {
        return (long) workers * slots;
    }

    /** The estimated time a slot is busy per task: the run time, one commit interval and {@link #CYCLE_OVERHEAD_MS}. */
    public long cycleMs() {
        return runMs + commitMs + CYCLE_OVERHEAD_MS;
    }

    /** The tasks per second the slots allow at {@link #cycleMs()} per task: near it, the fleet limits a drain. */
    public double slotCapPerSecond() {
        return totalSlots() * 1000.0 / cycleMs();
    }

    /** The slots of pool {@code pool}: its workers ({@link Workload#workersOfPool}) times their slots. */
    public long poolSlots(int pool) {
        return (long) Workload.workersOfPool(pool, pools, workers) * slots;
    }

    private static void atLeast(String flag, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(flag + " is " + value + "; it must be at least " + min);
        }
    }

    private static void atMost(String flag, long value, long max) {
        if (value > max) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "%s is %d; it must be at most %,d", flag, value, max));
        }
    }
}
