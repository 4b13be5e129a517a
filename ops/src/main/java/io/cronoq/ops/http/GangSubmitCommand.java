package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.GangRules;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code cronoq gangs submit}: submits a gang of {@code --size} members, each the task the flags of
 * {@code cronoq submit} describe, and prints the gang's id (member {@code i} is the task {@code <id>-<i>}). Every
 * value is checked here first, so a mistake names the flag; what only the gateway knows comes back naming the
 * body's field ({@code task.resources.memory}, {@code id}).
 */
@Command(name = "submit", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Submit a gang: --size members, each the task the flags describe, that start together or not "
                + "at all; prints the gang's id. Member i is the task <id>-i (see it with `cronoq status <id>-i`).",
            "Gangs do not take --start-at, --start-tolerance or --not-before: a gang starts when all its members fit at once."},
        footer = {"", "TIME is " + TimeFlags.TIME_FORMS + " (by this machine's clock).",
                "DURATION is " + Durations.FORMS + ".", "",
                "Examples:",
                "  cronoq gangs submit --pool train --id run-7 --size 4 \\",
            "      --placement spread --same-label rack \\",
                "      --label gpu=a100 --gpu 1 --payload-file job.json --timeout 2h"})
public final class GangSubmitCommand implements Callable<Integer> {

    /** The placements the gateway takes, as {@code --placement} spells them. */
    static final List<String> PLACEMENTS = List.of("any", "spread", "pack");

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--pool", required = true, paramLabel = "POOL", description = "The pool every member runs in.")
    String pool;

    @Option(names = "--id", paramLabel = "ID",
            description = "The gang id (default: a new UUID); member i is the task <id>-i. The same gang twice is one.")
    String id;

    @Option(names = "--size", required = true, paramLabel = "N", description = "How many members: 1 or more, and at most "
            + "the gateway's limit (1024 by default).")
    int size;

    @Option(names = "--placement", paramLabel = "PLACEMENT", description = "any (default: no constraint), spread "
            + "(each member on its own worker) or pack (as few workers as possible).")
    String placement;

    @Option(names = "--same-label", paramLabel = "KEY",
            description = "A label key, e.g. rack: every member runs on workers carrying one value of it.")
    String sameLabel;

    @Mixin
    TaskFlags task;

    /** Now, for the relative times ({@code +10m}); a seam for tests. */
    Clock clock = Clock.systemUTC();

    @Override
    public Integer call() throws IOException {
        var answer = gateway.client().post("/v1/gangs", body());
        gateway.print(answer, answer.path("id").asText());
        return 0;
    }

    /**
     * The JSON body of {@code POST /v1/gangs} the flags describe: the gang's fields, and the task every member runs.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    ObjectNode body() throws IOException {
        refuseWhatGangsDoNotTake();
        ObjectNode body = GatewayClient.json().createObjectNode().put("pool", pool);
        if (id != null) {
            GangRules.gangId(id).ifPresent(v -> {
                throw new IllegalArgumentException("--id: " + v.message());
            });
            body.put("id", id);
        }
        if (size < 1 || size > GangRules.MAX_SIZE) {
            throw new IllegalArgumentException("--size " + size + ": a gang has 1 to " + GangRules.MAX_SIZE
                    + " members; give a size in that range");
        }
        body.put("size", size);
        if (placement != null) {
            String chosen = placement.trim().toLowerCase(Locale.ROOT);
            if (!PLACEMENTS.contains(chosen)) {
                throw new IllegalArgumentException("--placement '" + placement + "' is not one of any, spread, pack");
            }
            body.put("placement", chosen);
        }
        if (sameLabel != null) {
            if (sameLabel.isBlank()) {
                throw new IllegalArgumentException("--same-label is blank: give a label key such as rack, or leave "
                        + "it out");
            }
            GangRules.sameLabel(sameLabel).ifPresent(v -> {
                throw new IllegalArgumentException("--same-label: " + v.message());
            });
            body.put("sameLabel", sameLabel);
        }
        task.clock = clock;
        task.putInto(body.putObject("task"));
        return body;
    }

    private void refuseWhatGangsDoNotTake() {
        notYet("--start-at", task.startAt != null, "a fixed start");
        notYet("--start-tolerance", task.startTolerance != null, "a fixed start");
        notYet("--not-before", task.notBefore != null, "a not-before time");
    }

    private static void notYet(String flag, boolean given, String what) {
        if (given) {
            throw new IllegalArgumentException(flag + ": gangs do not take " + what + " yet; leave " + flag + " out");
        }
    }
}
