package io.cronoq.ops;

import io.cronoq.agent.process.WorkerCommand;
import io.cronoq.ops.http.CancelCommand;
import io.cronoq.ops.http.GangsCommand;
import io.cronoq.ops.http.LimitsCommand;
import io.cronoq.ops.http.SnapshotCommand;
import io.cronoq.ops.http.StatusCommand;
import io.cronoq.ops.http.SubmitCommand;
import io.cronoq.ops.http.TenantsCommand;
import io.cronoq.ops.http.WorkersCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code cronoq} command line. Exit codes: 0 success, 1 failure, 2 usage error (a bad flag or
 * value, named in the message).
 */
@Command(name = "cronoq", mixinStandardHelpOptions = true, version = "cronoq 0.1.0",
        description = "A task scheduler for mixed worker fleets in which Kafka is the database.",
        subcommands = {DevCommand.class, SchedulerCommand.class, TopicsCommand.class,
                SubmitCommand.class, GangsCommand.class, io.cronoq.ops.http.WorkflowsCommand.class, StatusCommand.class, CancelCommand.class, SnapshotCommand.class, io.cronoq.ops.http.EtaCommand.class, WorkersCommand.class,
                TenantsCommand.class, LimitsCommand.class,
                io.cronoq.ops.replay.ReplayCommand.class, io.cronoq.ops.replay.SimulateCommand.class, io.cronoq.ops.replay.EtaAccuracyCommand.class, BenchPointerCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:failure", "2:usage error (bad flag or value)"})
public final class Cronoq {

    /** Builds the command line, so tests can run it without exiting the JVM. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Cronoq());
        // The agent process owns its flags and their rules (stop at `--`, exit 2 naming the flag).
        cli.addSubcommand("worker", WorkerCommand.configure(new CommandLine(new WorkerCommand())));
        cli.setExecutionExceptionHandler((error, command, parsed) -> {
            command.getErr().println(command.getColorScheme().errorText("cronoq: " + error.getMessage()));
            return error instanceof IllegalArgumentException ? CommandLine.ExitCode.USAGE : CommandLine.ExitCode.SOFTWARE;
        });
        return cli;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
