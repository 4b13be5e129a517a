package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.policy.forecast.Forecaster;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq eta-accuracy}: how good start estimates are, measured on the recorded journal (or on
 * made-up workloads recorded through the real policy), beside two naive estimates ({@link EtaAccuracy}).
 */
@Command(name = "eta-accuracy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure how good start estimates are: re-run the journal as recorded and, at evenly spaced instants, "
                    + "estimate every waiting task as the live system would have, then compare with when it was "
                    + "actually given a slot. Prints, per journal, the share of actual starts inside [p10, p90] and "
                    + "the median error relative to the actual wait (waits over 10 s), beside two naive estimates: "
                    + "place in line ÷ recent throughput, and every attempt taking its declared timeout.",
            "Without --workload it reads the recorded journal from the cluster."},
        footer = {"", "Examples:",
            "  cronoq eta-accuracy                                     # the recorded journal",
            "  cronoq eta-accuracy --workload bursty-mixed --workload drain",
            "  cronoq eta-accuracy --workload steady --variants 3 --instants 20"})
public final class EtaAccuracyCommand implements Callable<Integer> {

    @Mixin
    JournalOptions journal;

    @Option(names = "--workload", paramLabel = "drain|steady|bursty-mixed",
            description = "Measure on this made-up workload, recorded in memory through the real placement policy, "
                    + "instead of the recorded journal. Repeatable. A workload with arrivals is looked at from its "
                    + "minute 6 to its minute 60, while its tasks keep arriving for two hours.")
    List<String> workloads = new ArrayList<>();

    @Option(names = "--variants", paramLabel = "N", defaultValue = "1",
            description = "With --workload: how many random variants of each to record and measure (default: 1); "
                    + "with more than one, a last row per workload counts all their estimates together.")
    int variants;

    @Option(names = "--instants", paramLabel = "N", defaultValue = "30",
            description = "How many instants of each pool's journal to estimate at (default: 30).")
    int instants;

    @Mixin
    Output output;

    @Override
    public Integer call() {
        output.check();
        if (instants < 1 || instants > 10_000) {
            throw new IllegalArgumentException("--instants must be from 1 to 10000, was " + instants);
        }
        if (variants < 1 || variants > 100) {
            throw new IllegalArgumentException("--variants must be from 1 to 100, was " + variants);
        }
        List<Workloads.Kind> kinds = new ArrayList<>();
        for (String w : workloads) {
            kinds.add(Workloads.Kind.of(w));
        }
        List<EtaAccuracy.Report> reports = new ArrayList<>();
        var rules = journal.config().timeRules();
        if (kinds.isEmpty()) {
            List<JournalEntry> entries = new ArrayList<>();
            journal.read(null, entries::add);
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("the journal is empty, so there is nothing to measure; check "
                        + "--topic-prefix, or measure on a made-up workload with --workload");
            }
            reports.add(EtaAccuracy.measure("recorded journal", entries, rules, instants, Forecaster.Settings.DEFAULT));
        } else {
            for (Workloads.Kind kind : kinds) {
                List<EtaAccuracy.Report> each = new ArrayList<>();
                for (int v = 1; v <= variants; v++) {
                    each.add(EtaAccuracy.measure(kind.label() + (variants == 1 ? "" : " #" + v),
                            Workloads.record(kind, v), Simulation.simulated(rules), instants, Forecaster.Settings.DEFAULT));
                }
                reports.addAll(each);
                if (variants > 1) {
                    reports.add(EtaAccuracy.Report.pooled(kind.label() + " all", each));
                }
            }
        }
        output.write(out -> table(reports, out));
        return 0;
    }

    static void table(List<EtaAccuracy.Report> reports, PrintWriter out) {
        out.printf(Locale.ROOT, "%-18s %-22s %9s %12s %10s %11s %12s %12s%n", "journal", "method", "estimates",
                "in p10–p90", "gave one", "waits>10s", "median err", "median bias");
        for (EtaAccuracy.Report r : reports) {
            for (EtaAccuracy.Scores s : r.methods()) {
                out.printf(Locale.ROOT, "%-18s %-22s %9d %12s %10s %11d %12s %12s%n", r.workload(), s.method(),
                        s.scored(), EtaAccuracy.percent(s.inside()), EtaAccuracy.percent(s.given()), s.longWaits(),
                        EtaAccuracy.percent(s.medianError()), EtaAccuracy.percent(s.medianBias()));
            }
        }
        out.println("in p10–p90: the share of actual starts inside the estimate's interval (a point estimate has none); "
                + "median err: |estimated − actual start| ÷ actual wait, no estimate counting as infinite; median bias: "
                + "(estimated − actual start) ÷ actual wait, below 0 when it promises too early.");
    }
}
