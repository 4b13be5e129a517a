package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code cronoq simulate}: what-if from the journal. Re-runs the recorded inputs through the real
 * placement policy against a changed fleet and prints wait-time percentiles per group, recorded
 * vs simulated. With no change it reproduces the recorded placements.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "What-if from the journal: re-run the recorded submissions, cancels and fleet changes through the real "
                    + "placement policy against a changed fleet, and print wait-time percentiles per group, recorded "
                    + "vs simulated.",
            "Each simulated attempt reuses its recorded start delay, run time and outcome. With no change the "
                    + "simulation places every attempt exactly as recorded."},
        footer = {"", "Examples:",
            "  cronoq simulate                                      # no change: checks the simulation reproduces the recording",
            "  cronoq simulate --add-workers 'batch:gpu=a100:2x4'   # 2 more a100 workers with 4 slots each in pool batch",
            "  cronoq simulate --add-workers 'batch::4x2'           # 4 more unlabeled workers with 2 slots each",
            "  cronoq simulate --remove-group 'batch:gpu=t4' --json"})
public final class SimulateCommand implements Callable<Integer> {

    @Mixin
    JournalOptions journal;

    @Option(names = "--add-workers", paramLabel = "POOL:LABELS:COUNTxSLOTS",
            converter = FleetChange.AddWorkersConverter.class,
            description = "Add COUNT workers with LABELS (a=b,c=d; empty for none) and SLOTS slots each to POOL, "
                    + "present from the start. Repeatable.")
    List<FleetChange.AddWorkers> added = new ArrayList<>();

    @Option(names = "--remove-group", paramLabel = "POOL:LABELS", converter = FleetChange.RemoveGroupConverter.class,
            description = "Drop the registrations of POOL's workers that carry exactly LABELS (empty for the "
                    + "unlabeled group). Repeatable.")
    List<FleetChange.RemoveGroup> removed = new ArrayList<>();

    @Option(names = "--json", description = "Print the comparison as JSON.")
    boolean json;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to this file instead of stdout.")
    Path output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Output.check(output);
        FleetChange change = new FleetChange(List.copyOf(added), List.copyOf(removed));
        List<JournalEntry> entries = new ArrayList<>();
        journal.read(null, entries::add, spec.commandLine().getErr());
        if (entries.isEmpty() && !change.isNone()) {
            throw new IllegalArgumentException("the journal is empty, so there is nothing to change; "
                    + "drop --add-workers and --remove-group or check --topic-prefix");
        }
        WhatIf.Report report = WhatIf.run(entries, change);
        Output.to(output, spec.commandLine().getOut(), out -> {
            if (json) {
                WhatIfOutput.json(report, out);
            } else {
                WhatIfOutput.table(report, out);
            }
        });
        return 0;
    }
}
