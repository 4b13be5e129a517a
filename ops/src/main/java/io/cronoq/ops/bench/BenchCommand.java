package io.cronoq.ops.bench;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cronoq bench}: measures the scheduler end to end on a real broker against the physical
 * baseline of the same run, and prints each figure with its ratio (or one JSON line). Progress goes to
 * stderr, the report to stdout.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure cronoq end to end on a real broker (embedded by default) against a Kafka Streams "
                + "baseline (one RocksDB get+put per record, same guarantee, commit interval and record size) in the same run.",
                "Without --drain or --rate it runs a drain of 10,000 tasks and 200 tasks/s for 5 s (about a minute)."})
public final class BenchCommand implements Callable<Integer> {

    static final long DEFAULT_DRAIN = 10_000;
    static final int DEFAULT_RATE = 200;
    /** The warm-up drain when none is given: enough that the measured phases are not mostly the JIT at work. */
    static final long DEFAULT_WARMUP_DRAIN = 20_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--pools", paramLabel = "P", defaultValue = "2", description = "Pools (default: ${DEFAULT-VALUE}).")
    int pools;

    @Option(names = "--groups", paramLabel = "G", defaultValue = "2", description = "Groups (label sets) per pool (default: ${DEFAULT-VALUE}).")
    int groups;

    @Option(names = "--workers", paramLabel = "W", defaultValue = "32", description = "Simulated workers in all (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--slots", paramLabel = "S", defaultValue = "16", description = "Slots per worker (default: ${DEFAULT-VALUE}).")
    int slots;

    @Option(names = "--run-ms", paramLabel = "MS", defaultValue = "0", description = "How long each attempt runs; 0 completes it at once (default).")
    long runMs;

    @Option(names = "--drain", paramLabel = "N", description = "Pre-submit N tasks, then start the scheduler and time the drain.")
    Long drain;

    @Option(names = "--warmup-drain", paramLabel = "N", defaultValue = "" + DEFAULT_WARMUP_DRAIN,
            description = {"First drain N tasks unmeasured, on topics of their own, so the measured phases run on a JVM "
                    + "whose JIT has compiled the hot paths (on a cold JVM the JIT takes more CPU per task than the "
                    + "scheduler's stream thread). Default: ${DEFAULT-VALUE}; 0 measures a cold JVM."})
    long warmupDrain;

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

    @Option(names = "--fork", description = "Run the scheduler in a child JVM, so its memory figures are its own.")
    boolean fork;

    @Option(names = "--no-baseline", description = "Skip the Kafka Streams baseline (no ratios then).")
    boolean noBaseline;

    @Option(names = "--json", description = "Print one JSON line with every figure instead of the report.")
    boolean json;

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
        return new BenchSettings(pools, groups, workers, slots, runMs, drainTasks, warmupDrain, perSecond, durationS,
                warmupS,
                backlog, commitMs, partitions, bootstrap, fork, !noBaseline);
    }
}
