package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** {@code cronoq status}: a task's state, why it waits and when it will start, and its attempts. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show a task: state, waiting reason, estimated start, attempts.")
public final class StatusCommand extends TaskCommand {

    @Override
    public Integer call() {
        JsonNode answer = gateway.client().get(task.path() + task.query());
        if (gateway.printedJson(answer)) {
            return 0;
        }
        PrintWriter out = gateway.out();
        out.printf("%s in pool %s: %s%n", answer.path("id").asText(), answer.path("pool").asText(),
                answer.path("state").asText());
        JsonNode waiting = answer.path("waiting");
        if (waiting.isObject()) {
            out.printf("  waiting since %s: %s%n", waiting.path("since").asText(), waiting.path("reason").asText());
            JsonNode start = waiting.path("estimatedStart");
            if (start.isObject()) {
                out.printf("  starts around %s (p10 %s, p90 %s), %s ahead%n", start.path("p50").asText(),
                        start.path("p10").asText(), Table.text(start, "p90"), waiting.path("position").asText());
            }
            if (waiting.hasNonNull("estimate")) {
                out.printf("  estimate: %s%n", waiting.path("estimate").asText());
            }
        }
        JsonNode attempts = answer.path("attempts");
        if (attempts.size() > 0) {
            Table table = new Table("ATTEMPT", "WORKER", "GROUP", "ASSIGNED", "FINISHED", "OUTCOME", "ERROR");
            attempts.forEach(a -> table.row(a.path("attempt").asInt(), a.path("worker").asText(),
                    a.path("group").toString(), Table.text(a, "assignedAt"), Table.text(a, "finishedAt"),
                    Table.text(a, "outcome"), Table.text(a, "error")));
            table.print(out);
        }
        return 0;
    }
}
