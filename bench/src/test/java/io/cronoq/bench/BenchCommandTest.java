package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code cronoq bench} refuses settings it cannot run, naming the flag (exit code 2), before starting anything. */
class BenchCommandTest {

    @Test
    void tooFewWorkersForEveryGroupIsAUsageErrorNamingTheFlag() {
        Run run = run("--pools", "2", "--groups", "3", "--workers", "5");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--workers is 5").contains("at least --pools x --groups = 6");
    }

    @Test
    void aBacklogWithoutARateIsAUsageError() {
        Run run = run("--drain", "10", "--backlog", "100");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--backlog").contains("--rate");
    }

    @Test
    void aSchedulerSettingReachesTheSettingsAndABadOneIsAUsageErrorNamingIt() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--drain", "10", "--set", "cronoq.index.memory.entries=1000000");
        assertThat(command.settings().scheduler()).containsEntry("cronoq.index.memory.entries", "1000000");

        Run unknown = run("--drain", "10", "--set", "cronoq.no.such.key=1");
        assertThat(unknown.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(unknown.err()).contains("unknown setting 'cronoq.no.such.key'");
        Run tooFew = run("--drain", "10", "--set", "cronoq.index.memory.entries=2");
        assertThat(tooFew.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(tooFew.err()).contains("cronoq.index.memory.entries");
        Run benchs = run("--drain", "10", "--set", "cronoq.commit.interval.ms=5");
        assertThat(benchs.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(benchs.err()).contains("use --commit-ms");
    }

    @Test
    void aDataDirectoryThatIsNotThereIsAUsageErrorAndOneThatIsReachesTheSettings(@TempDir Path dir) {
        Run missing = run("--drain", "10", "--data-dir", dir.resolve("absent").toString());
        assertThat(missing.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(missing.err()).contains("--data-dir " + dir.resolve("absent")).contains("create it, or give another");

        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--drain", "10", "--data-dir", dir.toString());
        assertThat(command.settings().dataDir()).isEqualTo(dir);
        assertThat(command.settings().dataPlace()).startsWith(dir + " (");
    }

    @Test
    void aNegativeRateIsAUsageError() {
        Run run = run("--rate", "-5");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--rate is -5");
    }

    @Test
    void withoutDrainOrRateItRunsTheShortDefaultRun() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs();
        BenchSettings settings = command.settings();
        assertThat(settings.drain()).isEqualTo(BenchCommand.DEFAULT_DRAIN);
        assertThat(settings.rate()).isEqualTo(BenchCommand.DEFAULT_RATE);
        assertThat(settings.baseline()).isTrue();
        assertThat(settings.warmupDrain()).isEqualTo(BenchCommand.DEFAULT_WARMUP_DRAIN);
        assertThat(settings.warmupAtRateS()).as("the short run does not warm up at its low rate").isZero();
    }

    @Test
    void aRateRunWarmsUpAtTheRateUnlessToldOtherwise() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--rate", "5000");
        assertThat(command.settings().warmupAtRateS()).isEqualTo(BenchCommand.DEFAULT_WARMUP_AT_RATE_S);
        BenchCommand without = new BenchCommand();
        new CommandLine(without).parseArgs("--rate", "5000", "--warmup-at-rate", "0");
        assertThat(without.settings().warmupAtRateS()).isZero();
    }

    @Test
    void theWarmupDrainIsSplitIntoRounds() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--drain", "10", "--warmup-drain", "90000", "--warmup-rounds", "3");
        assertThat(command.settings().warmupDrainEach()).isEqualTo(30_000);
        BenchCommand byDefault = new BenchCommand();
        new CommandLine(byDefault).parseArgs("--drain", "10");
        assertThat(byDefault.settings().warmupRounds()).isEqualTo(BenchCommand.DEFAULT_WARMUP_ROUNDS);
        assertThat(run("--drain", "10", "--warmup-rounds", "0").err()).contains("--warmup-rounds is 0");
    }

    @Test
    void aNegativeWarmupAtTheRateIsAUsageError() {
        Run run = run("--rate", "100", "--warmup-at-rate", "-1");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--warmup-at-rate is -1");
    }

    @Test
    void theDefaultFleetHasSlotsEnoughNotToCapADrainAndTheBaselineDrainsItsOwnSize() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs();
        BenchSettings settings = command.settings();
        assertThat(settings.workers()).isEqualTo(64);
        assertThat(settings.slots()).isEqualTo(32);
        assertThat(settings.totalSlots()).isEqualTo(2_048);
        assertThat(settings.cycleMs()).as("run time 0 + commit 20 ms + the overhead").isEqualTo(25);
        assertThat(settings.slotCapPerSecond()).isEqualTo(81_920.0);
        assertThat(settings.baselineRecords()).isEqualTo(BenchCommand.DEFAULT_BASELINE_RECORDS);
        assertThat(settings.startReportDelayMs()).isEqualTo(BenchCommand.DEFAULT_START_REPORT_DELAY_MS);
        assertThat(settings.retentionMs()).as("the scheduler's own default").isNull();
        assertThat(settings.agents()).isFalse();
    }

    @Test
    void theNewFlagsReachTheSettings() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--drain", "5000", "--baseline-records", "40000", "--retention-ms", "2000",
                "--start-report-delay-ms", "0");
        BenchSettings settings = command.settings();
        assertThat(settings.drain()).isEqualTo(5_000);
        assertThat(settings.baselineRecords()).as("independent of --drain").isEqualTo(40_000);
        assertThat(settings.retentionMs()).isEqualTo(2_000L);
        assertThat(settings.startReportDelayMs()).isZero();
        assertThat(settings.stored()).as("a drain takes its submissions in unless told the tasks are stored").isFalse();
    }

    @Test
    void aDrainOfStoredTasksIsAskedFor() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--drain", "5000", "--stored");
        assertThat(command.settings().stored()).isTrue();
    }

    @Test
    void agentsReportAsTheyDo() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs("--agents");
        BenchSettings settings = command.settings();
        assertThat(settings.agents()).isTrue();
        assertThat(settings.startReportDelayMs()).as("not the bench's to set").isZero();
    }

    @Test
    void aStartReportDelayForAgentsIsAUsageError() {
        Run run = run("--agents", "--start-report-delay-ms", "5");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--start-report-delay-ms").contains("--agents");
    }

    @Test
    void anEmptyBaselineDrainIsAUsageError() {
        Run run = run("--drain", "10", "--baseline-records", "0");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--baseline-records is 0; it must be at least 1");
    }

    @Test
    void aNegativeRetentionIsAUsageError() {
        Run run = run("--drain", "10", "--retention-ms", "-1");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--retention-ms is -1");
    }

    @Test
    void aNegativeStartReportDelayIsAUsageError() {
        Run run = run("--drain", "10", "--start-report-delay-ms", "-20");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--start-report-delay-ms is -20");
    }

    @Test
    void aNegativeWarmUpDrainIsAUsageError() {
        Run run = run("--drain", "10", "--warmup-drain", "-1");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--warmup-drain is -1");
    }

    @Test
    void oneTenantIsTheDefaultAndTenantsReachTheSettings() {
        BenchCommand command = new BenchCommand();
        new CommandLine(command).parseArgs();
        assertThat(command.settings().tenants()).as("today's workload: no tenant, no policy").isEqualTo(1);
        new CommandLine(command).parseArgs("--drain", "5000", "--stored", "--tenants", "10000");
        assertThat(command.settings().tenants()).isEqualTo(10_000);
    }

    @Test
    void noTenantsIsAUsageErrorNamingTheFlag() {
        Run run = run("--drain", "10", "--tenants", "0");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--tenants is 0; it must be at least 1");
    }

    @Test
    void absurdlyManyTenantsIsAUsageErrorNamingTheFlagAndTheBound() {
        Run run = run("--drain", "10", "--tenants", "20001");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--tenants is 20001; it must be at most 20,000");
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = BenchCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private record Run(int code, String out, String err) {}
}
