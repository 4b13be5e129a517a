package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command that shows what the gateway answers at one path, for every pool or only {@code --pool}'s:
 * the answer as sent with {@code --json}, else tables.
 */
abstract class PoolListing implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", paramLabel = "POOL", description = "Only this pool.")
    String pool;

    /** The gateway path listed, e.g. {@code /v1/workers}. */
    private final String path;

    /** How the answer is shown for people as one table, or null when {@link #show} is overridden. */
    private final Function<JsonNode, Table> table;

    /** A listing of {@code path} that overrides {@link #show}. */
    PoolListing(String path) {
        this(path, null);
    }

    /** A listing of {@code path} shown as the one table that {@code table} makes of the answer. */
    PoolListing(String path, Function<JsonNode, Table> table) {
        this.path = path;
        this.table = table;
    }

    /** Prints the answer for people (one table, or a table per pool). */
    void show(JsonNode answer, PrintWriter out) {
        table.apply(answer).print(out);
    }

    /**
     * Prints each of {@code pools} with {@code onePool}, a blank line between two, or {@code none} when
     * there is none.
     */
    static void showEach(Iterable<JsonNode> pools, String none, PrintWriter out, BiConsumer<JsonNode, PrintWriter> onePool) {
        boolean first = true;
        for (JsonNode p : pools) {
            if (!first) {
                out.println();
            }
            first = false;
            onePool.accept(p, out);
        }
        if (first) {
            out.println(none);
        }
        out.flush();
    }

    /**
     * The query string of the call: {@code pool} when given, and what a listing adds.
     *
     * @throws IllegalArgumentException naming a flag whose value is wrong
     */
    Query query() {
        return new Query().add("pool", pool);
    }

    @Override
    public final Integer call() {
        JsonNode answer = gateway.client().get(path + query());
        if (!gateway.printedJson(answer)) {
            show(answer, gateway.out());
        }
        return 0;
    }
}
