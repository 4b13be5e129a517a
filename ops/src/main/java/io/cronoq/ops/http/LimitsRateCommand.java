package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.ops.limits.LimitFlags;
import io.cronoq.schemas.rules.LimitRules;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cronoq limits rate}: defines, replaces or removes a named rate limit of a pool through the
 * gateway ({@code PUT} and {@code DELETE /v1/pools/{pool}/limits/rates/{name}}, admin). Every value is
 * checked here first by the scheduler's own limit rules, so a mistake names the flag.
 */
@Command(name = "rate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Define, replace or remove a rate limit of a pool (needs an admin token).",
            "A rate limit is a bucket refilled with --per-second units per second up to --burst units; a task naming "
                    + "it takes its units when it is assigned, and waits until the bucket holds them. Tasks naming a "
                    + "rate limit that is not defined (or removed) wait until it is."},
        footer = {"", "Examples:",
            "  cronoq limits rate --pool gpu --name openai --per-second 10 --burst 20",
            "  cronoq limits rate --pool gpu --name slow-api --per-second 0.5      # one every two seconds, burst 1",
            "  cronoq limits rate --pool gpu --name openai --remove"})
final class LimitsRateCommand extends PoolChangeCommand {

    @Option(names = "--name", required = true, paramLabel = "NAME", description = "The rate limit's name, e.g. openai.")
    String name;

    @Option(names = "--per-second", paramLabel = "X",
            description = "Units refilled per second: above 0, at most 1000000 (0.5 is one unit every two seconds).")
    Double perSecond;

    @Option(names = "--burst", paramLabel = "B",
            description = "Units the bucket holds at most, so spent at once after a quiet time: 1 to 1000000 "
                    + "(default: --per-second rounded up).")
    Integer burst;

    @Option(names = "--remove", description = "Remove the rate limit: tasks naming it wait until it is defined again.")
    boolean remove;

    @Override
    String part() {
        return "/limits/rates/" + Query.encode(name);
    }

    @Override
    String done() {
        return "rate limit " + name + " of pool " + pool + ": " + describe() + " (sent; `cronoq limits --pool " + pool
                + "` shows it once the scheduler has taken it in)";
    }

    /**
     * The JSON body of the PUT the flags describe ({@code perSecond} and {@code burst} when given), or
     * null for {@code --remove}, which sends a DELETE.
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    @Override
    ObjectNode body() {
        if (remove && (perSecond != null || burst != null)) {
            throw new IllegalArgumentException("--remove and --" + (perSecond != null ? "per-second" : "burst")
                    + ": give --remove alone, or --per-second X [--burst B] to define the rate limit");
        }
        if (!remove && perSecond == null) {
            throw new IllegalArgumentException(burst != null
                    ? "--burst needs --per-second: a rate limit is defined by its refill; add --per-second X"
                    : "nothing to set for rate limit " + name + ": give --per-second X [--burst B], or --remove");
        }
        LimitSet event = new LimitSet(pool, LimitKind.RATE_LIMIT, name, null, perSecond, burst, "cronoq limits rate",
                clock.instant());
        LimitRules.check(event).ifPresent(v -> {
            throw LimitFlags.refusal(v, Map.of("pool", "--pool", "name", "--name", "perSecond", "--per-second",
                    "burst", "--burst"));
        });
        if (remove) {
            return null;
        }
        ObjectNode body = GatewayClient.json().createObjectNode().put("perSecond", perSecond);
        if (burst != null) {
            body.put("burst", burst);
        }
        return body;
    }

    /** {@code 10 per second, burst 20}, or {@code removed}. */
    private String describe() {
        if (remove) {
            return "removed (tasks naming it wait until it is defined again)";
        }
        String rate = LimitsCommand.decimal(GatewayClient.json().getNodeFactory().numberNode(perSecond), 3);
        return rate + " per second, burst " + (burst != null ? burst
                : LimitRules.defaultBurst(perSecond) + " (--per-second rounded up)");
    }
}
