package io.cronoq.ops.http;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cronoq cancel}: cancels a task in any state (a running attempt is revoked). */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a task in any state.")
public final class CancelCommand extends TaskCommand {

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, kept in the journal.")
    String reason;

    @Override
    public Integer call() {
        var answer = gateway.client().delete(task.path() + task.query().add("reason", reason));
        gateway.print(answer, "cancel requested for " + task.taskId);
        return 0;
    }
}
