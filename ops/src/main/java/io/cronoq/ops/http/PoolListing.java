package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command that shows what the gateway answers at one path, for every pool or only {@code --pool}'s:
 * the answer as sent with {@code --json}, else a table.
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

    /** The answer as a table for people. */
    abstract Table table(JsonNode answer);

    @Override
    public final Integer call() {
        JsonNode answer = gateway.client().get(path + new Query().add("pool", pool));
        if (!gateway.printedJson(answer)) {
            table(answer).print(gateway.out());
        }
        return 0;
    }
}
