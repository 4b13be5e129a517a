package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;

/** {@code cronoq workers}: the registered workers with their labels, slots, load and state. */
@Command(name = "workers", mixinStandardHelpOptions = true, description = "List workers: labels, slots, busy, state.")
public final class WorkersCommand extends PoolListing {

    /** Lists {@code /v1/workers}. */
    public WorkersCommand() {
        super("/v1/workers", WorkersCommand::table);
    }

    private static Table table(JsonNode answer) {
        Table table = new Table("WORKER", "POOL", "LABELS", "SLOTS", "BUSY", "STATE", "GENERATION", "LAST HEARTBEAT");
        JsonNode workers = answer.has("workers") ? answer.path("workers") : answer;
        for (JsonNode w : workers) {
            table.row(w.path("id").asText(), w.path("pool").asText(), w.path("labels").toString(), w.path("slots").asInt(),
                    w.path("busy").asInt(), w.path("state").asText(), w.path("generation").asLong(),
                    Table.text(w, "lastHeartbeat"));
        }
        return table;
    }
}
