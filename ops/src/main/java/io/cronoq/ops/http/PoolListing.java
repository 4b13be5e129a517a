package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
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

    PoolListing(String path) {
        this.path = path;
    }

    /** Prints the answer for people (one table, or a table per pool). */
    abstract void show(JsonNode answer, PrintWriter out);

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
