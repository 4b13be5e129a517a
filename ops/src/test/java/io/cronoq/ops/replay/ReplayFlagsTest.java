package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.ops.Cronoq;
import io.cronoq.scheduler.policy.TimeRules;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Bad flags of {@code replay} and {@code simulate} exit 2 and name the flag, before anything is read. */
class ReplayFlagsTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "replay --at yesterday                              | --at",
        "replay --from 2026-13-01                            | --from",
        "replay --format xml                                | --format",
        "replay --at 2026-01-01T00:00:00Z --from 2026-01-01 | --from",
        "replay --at 2026-01-01T00:00:00Z --format csv      | --format",
        "replay --json                                      | --json",
        "replay --output /no/such/dir/t.csv                 | --output",
        "simulate --add-workers batch:gpu=a100              | --add-workers",
        "simulate --add-workers batch:gpu=a100:0x4          | --add-workers",
        "simulate --remove-group batch                      | --remove-group",
        "simulate --remove-group batch:gpu                  | --remove-group",
        "simulate --deadline-lead soon                      | --deadline-lead",
        "simulate --reservation-lead 30                     | --reservation-lead",
        "simulate --priority-step PT-5M                     | --priority-step",
        "simulate --start-tolerance 1m30                    | --start-tolerance",
        "simulate --weight research                         | --weight",
        "simulate --weight research=0                       | --weight",
        "simulate --weight ml/team=2                        | --weight",
        "simulate --weight research=3 --weight research=4   | --weight: tenant research is given twice",
        "simulate --quota research:gpu=a100                 | --quota",
        "simulate --quota research:gpu=a100:guaranteed=5:max=2 | --quota",
        "simulate --quota research:gpu=a100:guaranteed=1 --quota research:gpu=a100:max=3 | --quota 'research:gpu=a100:max=3': it repeats",
        "simulate --preemption maybe                        | --preemption",
        "simulate --preemption                              | --preemption"})
    void aBadFlagExitsWithTwoAndNamesIt(String args, String flag) {
        int code = run(args.trim().split("\\s+"));

        assertThat(code).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains(flag);
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void helpListsTheFlagsAndExamples() {
        assertThat(run("replay", "--help")).isZero();
        assertThat(out.toString()).contains("--from", "--format", "--at", "--json", "--output", "progress",
                "--bootstrap", "--topic-prefix", "Examples:");
        assertThat(run("simulate", "--help")).isZero();
        assertThat(out.toString()).contains("--add-workers", "--remove-group", "POOL:LABELS:COUNTxSLOTS",
                "--weight=TENANT=W", "--quota=TENANT:SCOPE:guaranteed=N[:max=M]", "--preemption=on|off",
                "--deadline-lead", "--reservation-lead", "--priority-step", "--start-tolerance");
    }

    @Test
    void simulateTakesTheTimeRulesFromItsFlagsOverTheConfigFileOverTheDefaults(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("cronoq.toml"), """
                [cronoq]
                priority.step.ms = 60000
                deadline.lead.ms = 120000
                """);
        CommandLine cli = Cronoq.commandLine();

        cli.parseArgs("simulate", "--config", config.toString(), "--deadline-lead", "30m", "--start-tolerance", "5s");

        SimulateCommand simulate = cli.getSubcommands().get("simulate").getCommand();
        assertThat(simulate.timeRules()).isEqualTo(new TimeRules(TimeRules.DEFAULT.heartbeatTimeoutMs(),
                TimeRules.DEFAULT.reservationLeadMs(), 1_800_000, 60_000, 5_000, TimeRules.DEFAULT_RETENTION_MS));
    }

    private int run(String... args) {
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }
}
