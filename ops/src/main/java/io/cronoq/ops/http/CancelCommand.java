package io.cronoq.ops.http;

import java.util.StringJoiner;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq cancel}: cancels a task in any state (a running attempt is revoked). */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a task in any state.")
public final class CancelCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "TASK_ID", description = "The task's id.")
    String taskId;

    @Option(names = "--pool", paramLabel = "POOL",
            description = "The task's pool: needed when two pools use the id; otherwise optional.")
    String pool;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, kept in the journal.")
    String reason;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        if (pool != null) {
            query.add("pool=" + StatusCommand.encode(pool));
        }
        if (reason != null) {
            query.add("reason=" + StatusCommand.encode(reason));
        }
        String path = "/v1/tasks/" + StatusCommand.encode(taskId) + query;
        var answer = gateway.client().delete(path);
        spec.commandLine().getOut().println(gateway.json ? answer.toString() : "cancel requested for " + taskId);
        return 0;
    }
}
