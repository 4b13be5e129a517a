package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.ops.limits.LimitFlags;
import io.cronoq.schemas.rules.Durations;
import java.io.IOException;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq submit}: submits a task through the gateway and prints its id. Every value is
 * checked here first, so a mistake names the flag; what only the gateway knows comes back naming
 * the body's field.
 */
@Command(name = "submit", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Submit a task; prints its id.",
        footer = {"", "TIME is " + TimeFlags.TIME_FORMS + " (by this machine's clock).",
                "DURATION is " + Durations.FORMS + ".",
                "KEY[:MAX] is " + LimitFlags.KEY_FORM + ".",
                "NAME[:UNITS] is " + LimitFlags.RATE_FORM + ".", "",
                "Examples:", "  cronoq submit --pool inference --tenant research --label gpu=a100 --payload-file in.json \\",
                "      --start-at +30m --start-tolerance 2m --timeout 1h --max-attempts 5 --backoff 30s",
                "  cronoq submit --pool inference --concurrency customer-42:2 --rate-limit openai --payload 'hi'"})
public final class SubmitCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool to run in.")
    String pool;

    @Option(names = "--id", paramLabel = "ID", description = "The task id (default: a new UUID); the same id twice is one task.")
    String id;

    @Mixin
    TaskFlags task;

    /** Now, for the relative times ({@code +10m}); a seam for tests. */
    Clock clock = Clock.systemUTC();

    @Override
    public Integer call() throws IOException {
        var answer = gateway.client().post("/v1/tasks", body());
        gateway.print(answer, answer.path("id").asText());
        return 0;
    }

    /**
     * The JSON body of {@code POST /v1/tasks} the flags describe; times go as ISO-8601 instants,
     * durations as ISO-8601 durations.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    ObjectNode body() throws IOException {
        ObjectNode body = GatewayClient.json().createObjectNode().put("pool", pool);
        if (id != null) {
            body.put("id", id);
        }
        task.clock = clock;
        task.putInto(body);
        return body;
    }
}
