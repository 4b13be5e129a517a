package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq eta --pool P}: when a pool's backlog clears — its waiting tasks by estimated start,
 * and the first to start with their estimates — from the pool's last forecast.
 */
@Command(name = "eta", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show when a pool's waiting tasks will start: how many start in each span of time ahead (when "
                + "the backlog clears), then the first tasks to start, each with its place ahead of it, its start's "
                + "p10, p50 and p90, and what the estimate rests on.",
            "A forecast runs the pool forward with the placement policy itself over sampled futures, run times drawn "
                    + "from what the journal showed lately. One task's estimate: cronoq status TASK_ID."},
        footer = {"", "Examples:", "  cronoq eta --pool batch", "  cronoq eta --pool gpu --limit 100 --json"})
public final class EtaCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool.")
    String pool;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "How many of the first tasks to start to list, 1 to 1000 (default: 20).")
    int limit;

    @Override
    public Integer call() {
        if (limit < 1 || limit > 1_000) {
            throw new IllegalArgumentException("--limit must be from 1 to 1000, was " + limit);
        }
        JsonNode answer = gateway.client().get("/v1/pools/" + Query.encode(pool) + "/forecast"
                + new Query().add("limit", Integer.toString(limit)));
        if (gateway.printedJson(answer)) {
            return 0;
        }
        show(answer, gateway.out());
        return 0;
    }

    static void show(JsonNode f, PrintWriter out) {
        long waiting = f.path("waiting").asLong();
        out.printf("Pool %s: %d waiting, forecast at %s over %d futures%n", f.path("pool").asText(), waiting,
                f.path("madeAt").asText(), f.path("futures").asInt());
        if (waiting == 0) {
            out.println("No task waits.");
            return;
        }
        Table backlog = new Table("FROM", "TO", "STARTING", "STILL WAITING");
        for (JsonNode b : f.path("backlog")) {
            if (b.path("starting").asLong() > 0) {
                backlog.row(b.path("from").asText(), b.path("to").asText(), b.path("starting").asLong(),
                        b.path("stillWaiting").asLong());
            }
        }
        backlog.print(out);
        if (f.path("unknown").asLong() > 0) {
            out.printf("%d with no estimate (see cronoq status TASK_ID for why).%n", f.path("unknown").asLong());
        }
        out.println();
        Table first = new Table("TASK", "AHEAD", "P10", "P50", "P90", "ESTIMATE");
        for (JsonNode t : f.path("first")) {
            JsonNode start = t.path("estimatedStart");
            first.row(t.path("id").asText(), t.path("position").asLong(), Table.text(start, "p10"),
                    Table.text(start, "p50"), Table.text(start, "p90"), t.path("estimate").asText());
        }
        first.print(out);
    }
}
