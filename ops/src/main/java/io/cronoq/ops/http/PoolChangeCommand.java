package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A command that changes a pool's policy through the gateway (admin): it checks what its flags describe,
 * sends it, and prints the gateway's answer with {@code --json}, else what it did in words.
 */
abstract class PoolChangeCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool.")
    String pool;

    /** Stamps the event the flags are checked as; a seam for tests. */
    Clock clock = Clock.systemUTC();

    /**
     * The JSON body the flags describe, checked first by the scheduler's own rules; null where the change
     * is a DELETE of {@link #part()}, sent without one.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    abstract ObjectNode body();

    /**
     * What the change is to, under the pool's gateway path, e.g. {@code /sharing} for
     * {@code /v1/pools/gpu/sharing}; called once the flags are checked.
     */
    abstract String part();

    /** What was done, in words, for people. */
    abstract String done();

    @Override
    public final Integer call() {
        ObjectNode body = body();
        gateway.print(send(gateway.client(), body), done());
        return 0;
    }

    /** PUTs {@code body} to the pool's {@link #part()}, or DELETEs it without a body; the gateway's answer. */
    private JsonNode send(GatewayClient client, ObjectNode body) {
        String path = "/v1/pools/" + Query.encode(pool) + part();
        return body == null ? client.delete(path) : client.put(path, body);
    }
}
