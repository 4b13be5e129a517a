package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.policy.TimeRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq simulate}: what-if from the journal. Re-runs the recorded inputs through the real
 * placement policy against a changed fleet or sharing policy and prints wait-time percentiles per
 * group (and per tenant), recorded vs simulated. With no change it reproduces the recorded placements.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "What-if from the journal: re-run the recorded submissions, cancels, fleet changes and sharing changes "
                    + "through the real placement policy against a changed fleet or sharing policy, and print wait-time "
                    + "percentiles per group (and per tenant), recorded vs simulated.",
            "Each simulated attempt reuses its recorded start delay, run time and outcome. Time's decisions (delayed "
                    + "starts, retry backoffs, fixed starts, near deadlines, lease expiries) are taken when due, with "
                    + "the durations below; recorded evictions are replayed as evictions at their recorded times. With no change the "
                    + "simulation places every attempt as recorded."},
        footer = {"", "DURATION is a number with a unit (500ms, 30s, 10m, 1h30m) or ISO-8601 (PT30S).", "", "Examples:",
            "  cronoq simulate                                      # no change: checks the simulation reproduces the recording",
            "  cronoq simulate --add-workers 'batch:gpu=a100:2x4'   # 2 more a100 workers with 4 slots each in pool batch",
            "  cronoq simulate --add-workers 'batch::4x2'           # 4 more unlabeled workers with 2 slots each",
            "  cronoq simulate --remove-group 'batch:gpu=t4' --json",
            "  cronoq simulate --weight research=3                  # research weighs 3 all along",
            "  cronoq simulate --quota research:gpu=a100:guaranteed=4:max=16 --preemption off",
            "  cronoq simulate --config scheduler.toml              # the time rules of the scheduler that wrote the journal",
            "  cronoq simulate --deadline-lead 30m                  # it ran with cronoq.deadline.lead.ms = 1800000"})
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

    @Option(names = "--weight", paramLabel = "TENANT=W", converter = SharingChange.WeightConverter.class,
            description = "Give TENANT weight W (above 0, at most 1000) in every pool, from the start and after each "
                    + "recorded change of it. Repeatable.")
    List<SharingChange.Weight> weights = new ArrayList<>();

    @Option(names = "--quota", paramLabel = "TENANT:SCOPE:guaranteed=N[:max=M]",
            converter = SharingChange.QuotaConverter.class,
            description = "Give TENANT this quota in every pool (SCOPE: name=value[,name=value], or pool for the "
                    + "whole pool); a tenant's --quota flags replace its recorded quotas. Repeatable.")
    List<SharingChange.Quota> quotas = new ArrayList<>();

    @Option(names = "--preemption", paramLabel = "on|off", arity = "1", converter = SharingChange.PreemptionConverter.class,
            description = "Turn preemption on or off in every pool, from the start and after each recorded change.")
    Boolean preemption;

    @Option(names = "--reservation-lead", paramLabel = "DURATION", converter = Times.DurationConverter.class,
            description = "How long before a fixed start the recorded scheduler held a slot for it "
                    + "(cronoq.reservation.lead.ms; default: the config file's, else 30s).")
    Duration reservationLead;

    @Option(names = "--deadline-lead", paramLabel = "DURATION", converter = Times.DurationConverter.class,
            description = "How near a deadline moved a task ahead (cronoq.deadline.lead.ms; default: the config "
                    + "file's, else 10m).")
    Duration deadlineLead;

    @Option(names = "--priority-step", paramLabel = "DURATION", converter = Times.DurationConverter.class,
            description = "What one priority class was worth in waiting time (cronoq.priority.step.ms; default: the "
                    + "config file's, else 5m).")
    Duration priorityStep;

    @Option(names = "--start-tolerance", paramLabel = "DURATION", converter = Times.DurationConverter.class,
            description = "A fixed start's tolerance when its task gave none (cronoq.start.tolerance.ms; default: "
                    + "the config file's, else 1m).")
    Duration startTolerance;

    @Option(names = "--json", description = "Print the comparison as JSON.")
    boolean json;

    @Mixin
    Output output;

    @Override
    public Integer call() {
        output.check();
        FleetChange change = new FleetChange(List.copyOf(added), List.copyOf(removed));
        SharingChange sharing = SharingChange.of(weights, quotas, preemption);
        List<JournalEntry> entries = new ArrayList<>();
        journal.read(null, entries::add);
        if (entries.isEmpty() && !(change.isNone() && sharing.isNone())) {
            throw new IllegalArgumentException("the journal is empty, so there is nothing to change; "
                    + "drop --add-workers, --remove-group, --weight, --quota and --preemption or check --topic-prefix");
        }
        WhatIf.Report report = WhatIf.run(entries, change, sharing, timeRules());
        output.write(out -> {
            if (json) {
                WhatIfOutput.json(report, out);
            } else {
                WhatIfOutput.table(report, out);
            }
        });
        return 0;
    }

    /**
     * The durations of the recorded scheduler's time rules: the flags, else the config file's
     * settings, else the defaults. (The simulation does not use the heartbeat timeout.)
     */
    TimeRules timeRules() {
        TimeRules configured = journal.config().timeRules();
        return new TimeRules(configured.heartbeatTimeoutMs(),
                millis(reservationLead, configured.reservationLeadMs()),
                millis(deadlineLead, configured.deadlineLeadMs()),
                millis(priorityStep, configured.priorityStepMs()),
                millis(startTolerance, configured.startToleranceMs()),
                configured.retentionMs())
                .withGangReservation(configured.gangReserveAfterMs(), configured.gangReservationMs())
                .withGangStartTimeout(configured.gangStartTimeoutMs());
    }

    /** The flag's duration in milliseconds, or {@code configured} when the flag is not given. */
    private static long millis(Duration flag, long configured) {
        return flag != null ? flag.toMillis() : configured;
    }
}
