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
                "  cronoq submit --pool inference --concurrency customer-42:2 --rate-limit openai --payload 'hi'",
                "  cronoq submit --pool batch --id report-7 --after-finished train-7 --after evaluate-7"})
public final class SubmitCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool to run in.")
    String pool;

    @Option(names = "--id", paramLabel = "ID", description = "The task id (default: a new UUID); the same id twice is one task.")
    String id;

    @Mixin
    TaskFlags task;

    @Option(names = "--after", paramLabel = "TASK_ID",
            description = "A parent that must succeed before this task starts (repeatable; any pool).")
    java.util.List<String> after = new java.util.ArrayList<>();

    @Option(names = "--after-failed", paramLabel = "TASK_ID",
            description = "A parent that must fail before this task starts (repeatable).")
    java.util.List<String> afterFailed = new java.util.ArrayList<>();

    @Option(names = "--after-finished", paramLabel = "TASK_ID",
            description = "A parent that must end, in any way, before this task starts (repeatable).")
    java.util.List<String> afterFinished = new java.util.ArrayList<>();

    @Option(names = "--run-if-parent-unmet",
            description = "Run even when a parent ends otherwise than asked (a clean-up), instead of being cancelled.")
    boolean runIfParentUnmet;

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
        if (!after.isEmpty() || !afterFailed.isEmpty() || !afterFinished.isEmpty()) {
            var parents = body.putArray("after");
            after.forEach(parents::add);
            afterFailed.forEach(p -> parents.addObject().put("task", p).put("when", "failed"));
            afterFinished.forEach(p -> parents.addObject().put("task", p).put("when", "finished"));
        }
        if (runIfParentUnmet) {
            body.put("onParentUnmet", "run");
        }
        return body;
    }
}
