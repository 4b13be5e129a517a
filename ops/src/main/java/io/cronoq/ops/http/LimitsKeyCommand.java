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
 * {@code cronoq limits key}: sets or removes a concurrency key's limit in a pool through the gateway
 * ({@code PUT /v1/pools/{pool}/limits/keys}, admin). Every value is checked here first by the
 * scheduler's own limit rules, so a mistake names the flag.
 */
@Command(name = "key", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Set or remove a concurrency key's limit in a pool (needs an admin token).",
            "At most MAX attempts holding the key run at once in the pool: the limit of tasks naming the key with no "
                    + "max of their own, and the ceiling of those naming a larger one (the smallest limit applies). "
                    + "Without a limit, a task naming the key with no max runs one at a time."},
        footer = {"", "Examples:",
            "  cronoq limits key --pool gpu --key customer-42 --max 2",
            "  cronoq limits key --pool gpu --key customer-42 --remove"})
final class LimitsKeyCommand extends PoolChangeCommand {

    @Option(names = "--key", required = true, paramLabel = "KEY", description = "The concurrency key, e.g. customer-42.")
    String key;

    @Option(names = "--max", paramLabel = "N", description = "Attempts holding the key at once: 1 to 1000000.")
    Integer max;

    @Option(names = "--remove", description = "Remove the key's limit in the pool.")
    boolean remove;

    @Override
    String part() {
        return "/limits/keys";
    }

    @Override
    String done() {
        return "key " + key + " of pool " + pool + ": " + (remove
                ? "limit removed (tasks naming it with no max of their own run one at a time)"
                : "limit " + max) + " (sent; `cronoq limits --pool " + pool + "` shows it once the scheduler has "
                + "taken it in)";
    }

    /**
     * The JSON body of the PUT the flags describe: {@code key} and {@code max} (null to remove).
     *
     * @throws IllegalArgumentException naming the flag whose value is wrong and what to give instead
     */
    @Override
    ObjectNode body() {
        if (max == null && !remove) {
            throw new IllegalArgumentException("nothing to set for key " + key + ": give --max N (1 to "
                    + LimitRules.MAX_COUNT + " attempts at once) or --remove");
        }
        if (max != null && remove) {
            throw new IllegalArgumentException("--max and --remove: give one or the other");
        }
        LimitSet event = new LimitSet(pool, LimitKind.CONCURRENCY_KEY, key, max, null, null, "cronoq limits key",
                clock.instant());
        LimitRules.check(event).ifPresent(v -> {
            throw LimitFlags.refusal(v, Map.of("pool", "--pool", "name", "--key", "max", "--max"));
        });
        ObjectNode body = GatewayClient.json().createObjectNode().put("key", key);
        if (max == null) {
            body.putNull("max");
        } else {
            body.put("max", max);
        }
        return body;
    }
}
