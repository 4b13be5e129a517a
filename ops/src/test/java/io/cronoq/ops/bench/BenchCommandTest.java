package io.cronoq.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.ops.Cronoq;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code cronoq bench} refuses settings it cannot run, naming the flag (exit code 2), before starting anything. */
class BenchCommandTest {

    @Test
    void tooFewWorkersForEveryGroupIsAUsageErrorNamingTheFlag() {
        Run run = run("bench", "--pools", "2", "--groups", "3", "--workers", "5");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--workers is 5").contains("at least --pools x --groups = 6");
    }

    @Test
    void aBacklogWithoutARateIsAUsageError() {
        Run run = run("bench", "--drain", "10", "--backlog", "100");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--backlog").contains("--rate");
    }

    @Test
    void aNegativeRateIsAUsageError() {
        Run run = run("bench", "--rate", "-5");
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
    }

    @Test
    void aNegativeWarmUpDrainIsAUsageError() {
        Run run = run("bench", "--drain", "10", "--warmup-drain", "-1");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--warmup-drain is -1");
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private record Run(int code, String out, String err) {}
}
