package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.schemas.rules.Durations;
import picocli.CommandLine.Command;

/** {@code cronoq snapshot}: pools and their groups with capacity, busy slots, waiting tasks and demand. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Show pools and groups: capacity, busy, waiting, oldest wait, demand.")
public final class SnapshotCommand extends PoolListing {

    /** Lists {@code /v1/snapshot}. */
    public SnapshotCommand() {
        super("/v1/snapshot", SnapshotCommand::table);
    }

    private static Table table(JsonNode snapshot) {
        Table table = new Table("POOL", "GROUP", "WORKERS", "CAPACITY", "BUSY", "WAITING", "OLDEST WAIT", "DEMAND");
        for (JsonNode p : snapshot.path("pools")) {
            table.row(p.path("pool").asText(), "(all)", "", p.path("capacity").asInt(), p.path("busy").asInt(),
                    p.path("waiting").asLong(), waited(p.path("oldestWaitingMs")), p.path("demand").asLong());
            for (JsonNode g : p.path("groups")) {
                String key = g.path("key").asText();
                table.row("", key.isEmpty() ? "(no labels)" : key, g.path("workers").asInt(), g.path("capacity").asInt(),
                        g.path("busy").asInt(), g.path("waiting").asLong(), waited(g.path("oldestWaitingMs")),
                        g.path("demand").asLong());
            }
        }
        return table;
    }

    private static String waited(JsonNode millis) {
        return millis.isNumber() ? Durations.words(millis.asLong()) : "-";
    }
}
