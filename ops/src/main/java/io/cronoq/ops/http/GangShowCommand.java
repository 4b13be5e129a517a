package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code cronoq gangs show}: a gang's state, why it waits, and each member's state and worker. */
@Command(name = "show", mixinStandardHelpOptions = true,
        description = "Show a gang: its state, why it waits, and each member's state, worker and attempt.")
public final class GangShowCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Parameters(index = "0", paramLabel = "GANG_ID", description = "The gang's id.")
    String gangId;

    @Option(names = "--pool", paramLabel = "POOL", description = "The gang's pool: needed when two pools use the id; "
            + "otherwise optional (it routes straight to the owner).")
    String pool;

    @Override
    public Integer call() {
        JsonNode answer = gateway.client().get("/v1/gangs/" + Query.encode(gangId) + new Query().add("pool", pool));
        if (gateway.printedJson(answer)) {
            return 0;
        }
        PrintWriter out = gateway.out();
        out.println(header(answer));
        String reason = Table.text(answer, "reason");
        if (reason != null) {
            out.printf("  waiting: %s%n", reason);
        }
        Table table = new Table("RANK", "TASK", "STATE", "WORKER", "ATTEMPT");
        answer.path("members").forEach(m -> table.row(m.path("rank").asInt(), m.path("taskId").asText(),
                Table.text(m, "state"), Table.text(m, "workerId"), Table.text(m, "attempt")));
        table.print(out);
        return 0;
    }

    /** {@code Gang run-7 in pool train: RUNNING (4 members, placement SPREAD, one value of rack)}. */
    static String header(JsonNode gang) {
        String sameLabel = Table.text(gang, "sameLabel");
        return "Gang " + gang.path("id").asText() + " in pool " + gang.path("pool").asText() + ": "
                + gang.path("state").asText() + " (" + gang.path("size").asInt() + " members, placement "
                + gang.path("placement").asText() + (sameLabel == null ? "" : ", one value of " + sameLabel) + ")";
    }
}
