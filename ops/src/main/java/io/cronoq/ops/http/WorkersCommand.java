package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq workers}: the registered workers with their labels, slots, load and state. */
@Command(name = "workers", mixinStandardHelpOptions = true, description = "List workers: labels, slots, busy, state.")
public final class WorkersCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", paramLabel = "POOL", description = "Only this pool.")
    String pool;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        JsonNode answer = gateway.client().get("/v1/workers" + (pool == null ? "" : "?pool=" + StatusCommand.encode(pool)));
        PrintWriter out = spec.commandLine().getOut();
        if (gateway.json) {
            out.println(answer);
            return 0;
        }
        Table table = new Table("WORKER", "POOL", "LABELS", "SLOTS", "BUSY", "STATE", "GENERATION", "LAST HEARTBEAT");
        JsonNode workers = answer.has("workers") ? answer.path("workers") : answer;
        for (JsonNode w : workers) {
            table.row(w.path("id").asText(), w.path("pool").asText(), w.path("labels").toString(), w.path("slots").asInt(),
                    w.path("busy").asInt(), w.path("state").asText(), w.path("generation").asLong(),
                    StatusCommand.text(w, "lastHeartbeat"));
        }
        table.print(out);
        return 0;
    }
}
