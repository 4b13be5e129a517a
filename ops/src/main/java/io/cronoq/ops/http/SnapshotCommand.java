package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq snapshot}: pools and their groups with capacity, busy slots, waiting tasks and demand. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Show pools and groups: capacity, busy, waiting, oldest wait, demand.")
public final class SnapshotCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", paramLabel = "POOL", description = "Only this pool.")
    String pool;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        JsonNode snapshot = gateway.client().get("/v1/snapshot" + (pool == null ? "" : "?pool=" + StatusCommand.encode(pool)));
        PrintWriter out = spec.commandLine().getOut();
        if (gateway.json) {
            out.println(snapshot);
            return 0;
        }
        Table table = new Table("POOL", "GROUP", "WORKERS", "CAPACITY", "BUSY", "WAITING", "OLDEST WAIT", "DEMAND");
        for (JsonNode p : snapshot.path("pools")) {
            table.row(p.path("pool").asText(), "(all)", "", p.path("capacity").asInt(), p.path("busy").asInt(),
                    p.path("waiting").asLong(), seconds(p.path("oldestWaitingMs")), p.path("demand").asLong());
            for (JsonNode g : p.path("groups")) {
                String key = g.path("key").asText();
                table.row("", key.isEmpty() ? "(no labels)" : key, g.path("workers").asInt(), g.path("capacity").asInt(),
                        g.path("busy").asInt(), g.path("waiting").asLong(), seconds(g.path("oldestWaitingMs")),
                        g.path("demand").asLong());
            }
        }
        table.print(out);
        return 0;
    }

    private static String seconds(JsonNode millis) {
        return millis.isNumber() ? String.format("%.1fs", millis.asLong() / 1000.0) : "-";
    }
}
