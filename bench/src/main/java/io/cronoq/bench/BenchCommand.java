package io.cronoq.bench;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cronoq bench}: measures the scheduler end to end on a real broker against the physical
 * baseline of the same run, and prints each figure with its ratio (or one JSON line). Progress goes to
 * stderr, the report to stdout. A tool of its own, not part of the platform's distribution: the {@code ./cronoq}
 * launcher runs it for {@code ./cronoq bench}. Exit codes: 0 success, 1 failure, 2 usage error (a bad flag or value,
 * named in the message).
 */
@Command(name = "cronoq bench", mixinStandardHelpOptions = true,
        description = {"Measure cronoq end to end on a real broker (embedded by default) against a Kafka Streams "
                + "baseline (one RocksDB get+put per record, same guarantee, commit interval and record size) in the same run.",
                "Without --drain or --rate it runs a drain of 10,000 tasks and 200 tasks/s for 5 s, after a warm-up drain "
                        + "of 100,000; the baseline drains 300,000 records."})
public final class BenchCommand implements Callable<Integer> {

    static final long DEFAULT_DRAIN = 10_000;
    static final int DEFAULT_RATE = 200;
    /**
     * The warm-up drain when none is given: enough that the measured phases are not mostly the JIT at work. After
     * 20,000 the first seconds of a 5,000 tasks/s phase still fell seconds behind on 2 cores; after two rounds of
     * 50,000 the JIT still took a quarter of a measured drain's CPU, compiling the embedded broker's and Kafka
     * Streams' code; in a run of four rounds they drained 5,504, 8,869, 14,025 and 15,197 tasks/s.
     */
    static final long DEFAULT_WARMUP_DRAIN = 200_000;
    static final int DEFAULT_WARMUP_ROUNDS = 4;
    /**
     * The warm-up at the rate when --rate is given and no --warmup-at-rate: after a warm-up drain alone, the JIT was
     * still compiling the broker's and the clients' steady-rate paths 30 s into a 5,000 tasks/s phase, on 2 cores at
     * 92-97% CPU, and the stalls it caused made that phase's p99.
     */
    static final int DEFAULT_WARMUP_AT_RATE_S = 60;
    /** How long a measured part waits at most for the JIT to go quiet ({@link JitQuiet}) when not told. */
    static final int DEFAULT_JIT_WAIT_S = 120;
    /**
     * The baseline's drain when none is given: long enough that what does not grow with a drain (its first fetches,
     * transactions and commits on fresh topics) weighs little on its records/s, which grew 3.4x from a 40,000- to a
     * 100,000-record drain.
     */
    static final long DEFAULT_BASELINE_RECORDS = 300_000;
    /** How long a simulated worker holds back {@code AttemptStarted} when not told: a real agent's delay. */
    static final long DEFAULT_START_REPORT_DELAY_MS = 20;

    @Spec
    CommandSpec spec;

    @Option(names = "--pools", paramLabel = "P", defaultValue = "2", description = "Pools (default: ${DEFAULT-VALUE}).")
    int pools;

    @Option(names = "--groups", paramLabel = "G", defaultValue = "2", description = "Groups (label sets) per pool (default: ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--workers", paramLabel = "W", defaultValue = "64",
            description = "Workers in all, simulated or (--agents) real (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--slots", paramLabel = "S", defaultValue = "32",
            description = "Slots per worker (default: ${DEFAULT-VALUE}; 64 x 32 = 2,048 slots, about 80,000 tasks/s at a "
                    + "25 ms assignment->completion cycle, so the fleet does not cap a drain).")
    int slots;

    @Option(names = "--run-ms", paramLabel = "MS", defaultValue = "0", description = "How long each attempt runs; 0 completes it at once (default).")
    long runMs;

    @Option(names = "--start-report-delay-ms", paramLabel = "MS",
            description = {"How long a simulated worker holds back AttemptStarted, as an agent does (default: "
                    + DEFAULT_START_REPORT_DELAY_MS + "): an attempt that ends within it is reported by its "
                    + "AttemptSucceeded alone, a longer one by AttemptStarted (at its real start) after the delay and "
                    + "its success at the end. 0 sends AttemptStarted at once. Not with --agents, which report as "
                    + "they do."})
    Long startReportDelayMs;

    @Option(names = "--agents",
            description = "Run the fleet as real worker agents (a CronoqWorker per worker, in this JVM, each with its "
                    + "own Kafka clients) whose handler returns at once (or after --run-ms), instead of simulated workers.")
    boolean agents;

    @Option(names = "--retention-ms", paramLabel = "MS",
            description = {"How long the scheduler keeps a finished task before it forgets it (its "
                    + "cronoq.task.retention.ms; default: the scheduler's, 7 days). A drain longer than this includes "
                    + "the forgetting of the tasks it finished first."})
    Long retentionMs;

    @Option(names = "--stored", description = {"Drain stored tasks: the workers join once the scheduler has taken in "
            + "every submission, and the drain is timed from then, as a database scheduler drains rows inserted before "
            + "it starts (default: the workers are there first, and taking in the submissions is part of the drain)."})
    boolean stored;

    @Option(names = "--fan-in", description = {"The measured drain is one fan-out and fan-in: a source task, then every "
            + "task but the last after it (spread over the pools, so most wait across pools), then one reducer after all "
            + "of them; N is at most 10,002."})
    boolean fanIn;

    @Option(names = "--drain", paramLabel = "N", description = "Pre-submit N tasks, then start the scheduler and time the drain.")
    Long drain;

    @Option(names = "--warmup-drain", paramLabel = "N", defaultValue = "" + DEFAULT_WARMUP_DRAIN,
            description = {"First drain N tasks unmeasured, on topics of their own, so the measured phases run on a JVM "
                    + "whose JIT has compiled the hot paths (on a cold JVM the JIT takes more CPU per task than the "
                    + "scheduler's stream thread). Default: ${DEFAULT-VALUE}; 0 measures a cold JVM."})
    long warmupDrain;

    @Option(names = "--warmup-rounds", paramLabel = "N", defaultValue = "" + DEFAULT_WARMUP_ROUNDS,
            description = {"Run the warm-up drain as N drains of --warmup-drain / N tasks, each a scheduler on topics of "
                    + "its own: a drain's phase changes throw away code the JIT compiled before them, and with one "
                    + "round it was compiled again during the measured drain. Default: ${DEFAULT-VALUE}."})
    int warmupRounds;

    @Option(names = "--warmup-at-rate", paramLabel = "S",
            description = {"With --rate, then run S seconds at the rate unmeasured, on topics of their own: a drain "
                    + "does not run what a steady rate runs (small produce and fetch requests, short polls, in the "
                    + "broker, the clients and the scheduler), and on a JVM warmed by a drain alone the JIT compiles it "
                    + "during the first half-minute at the rate, taking CPU the measured seconds need. "
                    + "Default: " + DEFAULT_WARMUP_AT_RATE_S + " with --rate, none in the short default run; 0: "
                    + "none (then --warmup on the measured scheduler is all)."})
    Integer warmupAtRateS;

    @Option(names = "--jit-wait", paramLabel = "S", defaultValue = "" + DEFAULT_JIT_WAIT_S,
            description = {"Before each measured part (the scheduler's and the baseline's), wait up to S seconds for "
                    + "the JIT to go quiet (compiling under 2%% of 2 s): what came before (the warm-up, the taking in "
                    + "of a stored drain's tasks) leaves it compiling for seconds on 2 cores, and the measured part "
                    + "should not pay for that. Default: ${DEFAULT-VALUE}; 0: no wait."})
    int jitWaitS;

    @Option(names = "--rate", paramLabel = "N", description = "Submit N tasks/s, open loop, to a running scheduler.")
    Integer rate;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "5", description = "Measured seconds at --rate (default: ${DEFAULT-VALUE}).")
    int durationS;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "2", description = "Unmeasured seconds at --rate first (default: ${DEFAULT-VALUE}).")
    int warmupS;

    @Option(names = "--backlog", paramLabel = "N", defaultValue = "0",
            description = "Then load N tasks for a saturated group and measure --rate again (needs --rate).")
    long backlog;

    @Option(names = "--commit-ms", paramLabel = "MS", defaultValue = "20",
            description = "Commit interval of the scheduler and the baseline (default: ${DEFAULT-VALUE}, the scheduler's).")
    int commitMs;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "6", description = "Partitions of every topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "An external Kafka instead of the embedded one.")
    String bootstrap;

    @Option(names = "--data-dir", paramLabel = "DIR", description = {"Where the run keeps its data: the embedded "
            + "broker's logs, the schedulers' and the baseline's state (default: the system's temporary directory).",
            "/dev/shm keeps them in memory: on a machine with one disk, the broker's flushes there stall its writes "
            + "now and then, and every task waiting on them."})
    Path dataDir;

    @Option(names = "--fork", description = "Run the scheduler in a child JVM, so its memory figures are its own.")
    boolean fork;

    @Option(names = "--no-baseline", description = "Skip the Kafka Streams baseline (no ratios then).")
    boolean noBaseline;

    @Option(names = "--baseline-records", paramLabel = "N", defaultValue = "" + DEFAULT_BASELINE_RECORDS,
            description = {"Records of the baseline's drain, whatever --drain is, so that the baseline is measured at "
                    + "its plateau and the ratios do not move with the scheduler's drain (default: ${DEFAULT-VALUE})."})
    long baselineRecords;

    @Option(names = "--tenants", paramLabel = "N", defaultValue = "1",
            description = {"Tenants sharing each pool: task k runs for tenant bench-tenant-<k mod N>, and before the "
                    + "measured part each pool's sharing policy is set for them (weights 1 to 4, a tenth guaranteed "
                    + "slots, a tenth bounded by a max). Default: ${DEFAULT-VALUE}, the tasks name no tenant and no "
                    + "policy is set; at most " + BenchTenants.MAX + "."})
    int tenants;

    @Option(names = "--set", paramLabel = "KEY=VALUE",
            description = "A scheduler setting for the scheduler under test (repeatable), e.g. --set "
                    + "cronoq.index.memory.entries=1000000 to compare two values of it.")
    private Map<String, String> schedulerSettings = new HashMap<>();

    @Option(names = "--json", description = "Print one JSON line with every figure instead of the report.")
    boolean json;

    /** Builds the command line, so tests can run it without exiting the JVM. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new BenchCommand());
        cli.setExecutionExceptionHandler((error, command, parsed) -> {
            command.getErr().println(command.getColorScheme().errorText("cronoq: " + error.getMessage()));
            return error instanceof IllegalArgumentException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
        return cli;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    @Override
    public Integer call() {
        BenchSettings settings = settings();
        PrintWriter out = spec.commandLine().getOut();
        BenchReport report = new Bench(settings, spec.commandLine().getErr()).run();
        if (json) {
            out.println(report.toJson());
        } else {
            report.print(out);
        }
        out.flush();
        return 0;
    }

    /** The settings of these flags (the defaults when neither --drain nor --rate is given). */
    BenchSettings settings() {
        boolean neither = drain == null && rate == null;
        long drainTasks = neither ? DEFAULT_DRAIN : drain == null ? 0 : drain;
        int perSecond = neither ? DEFAULT_RATE : rate == null ? 0 : rate;
        if (agents && startReportDelayMs != null) {
            throw new IllegalArgumentException("--start-report-delay-ms is for simulated workers; with --agents the "
                    + "agents report as they do");
        }
        long startDelay = agents ? 0 : startReportDelayMs == null ? DEFAULT_START_REPORT_DELAY_MS : startReportDelayMs;
        int atRate = warmupAtRateS != null ? warmupAtRateS : neither ? 0 : DEFAULT_WARMUP_AT_RATE_S;
        return new BenchSettings(pools, groups, workers, slots, runMs, drainTasks, warmupDrain, warmupRounds, atRate,
                jitWaitS, perSecond, durationS, warmupS, backlog, commitMs, partitions, bootstrap, dataDir, fork,
                !noBaseline, baselineRecords, retentionMs, agents, startDelay, stored, tenants, fanIn, schedulerSettings);
    }
}
