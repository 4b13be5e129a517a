package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq status}: a task's state, why it waits, and its attempts. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show a task: state, waiting reason, attempts.")
public final class StatusCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "TASK_ID", description = "The task's id.")
    String taskId;

    @Option(names = "--pool", paramLabel = "POOL", description = "The task's pool: needed when two pools use the id; otherwise optional (it routes straight to the owner).")
    String pool;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        String path = "/v1/tasks/" + encode(taskId) + (pool == null ? "" : "?pool=" + encode(pool));
        JsonNode task = gateway.client().get(path);
        PrintWriter out = spec.commandLine().getOut();
        if (gateway.json) {
            out.println(task);
            return 0;
        }
        out.printf("%s in pool %s: %s%n", task.path("id").asText(), task.path("pool").asText(), task.path("state").asText());
        JsonNode waiting = task.path("waiting");
        if (waiting.isObject()) {
            out.printf("  waiting since %s: %s%n", waiting.path("since").asText(), waiting.path("reason").asText());
        }
        JsonNode attempts = task.path("attempts");
        if (attempts.size() > 0) {
            Table table = new Table("ATTEMPT", "WORKER", "GROUP", "ASSIGNED", "FINISHED", "OUTCOME", "ERROR");
            attempts.forEach(a -> table.row(a.path("attempt").asInt(), a.path("worker").asText(),
                    a.path("group").toString(), text(a, "assignedAt"), text(a, "finishedAt"), text(a, "outcome"),
                    text(a, "error")));
            table.print(out);
        }
        return 0;
    }

    static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        return value.isMissingNode() || value.isNull() ? null : value.asText();
    }

    static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
