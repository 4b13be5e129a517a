package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cronoq limits}: each pool's rate limits (their refill, burst, units available and the tasks
 * they hold back) and its concurrency keys holding back the most tasks (their limit, the attempts
 * holding them, the limit in force), as tables or the gateway's JSON. {@code key} and {@code rate}
 * change them.
 */
@Command(name = "limits", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show each pool's rate limits and its concurrency keys holding back the most tasks, "
                + "two tables per pool.",
            "A key's LIMIT is the one an admin set in the pool ('-': none, so a task's own max, else 1); RUNNING the "
                    + "attempts holding it; IN FORCE the smallest limit among them, which no task starts beside; "
                    + "HELD BACK the waiting tasks it holds back now. A rate limit refills PER SECOND units up to "
                    + "BURST; a task takes its units at assignment; one no admin defined holds its tasks until it is."},
        subcommands = {LimitsKeyCommand.class, LimitsRateCommand.class},
        footer = {"", "Examples:",
            "  cronoq limits                       # every pool",
            "  cronoq limits --pool gpu --keys 50 --json",
            "  cronoq limits key --pool gpu --key customer-42 --max 2",
            "  cronoq limits rate --pool gpu --name openai --per-second 10 --burst 20",
            "  cronoq limits rate --pool gpu --name openai --remove"})
public final class LimitsCommand extends PoolListing {

    /** The most keys one answer lists per pool. */
    static final int MAX_KEYS = 10_000;

    @Option(names = "--keys", paramLabel = "N",
            description = "List at most N concurrency keys per pool, those holding back the most tasks first "
                    + "(default: the gateway's, 100).")
    Integer keys;

    /** Lists {@code /v1/limits}. */
    public LimitsCommand() {
        super("/v1/limits");
    }

    @Override
    Query query() {
        if (keys != null && (keys < 1 || keys > MAX_KEYS)) {
            throw new IllegalArgumentException("--keys " + keys + ": list 1 to " + MAX_KEYS + " keys per pool, "
                    + "e.g. --keys 20");
        }
        return super.query().add("keys", keys == null ? null : keys.toString());
    }

    @Override
    void show(JsonNode answer, PrintWriter out) {
        showEach(pools(answer), pool == null ? "No pool has concurrency keys or rate limits yet: no task names one and "
                + "no admin set one." : "Pool " + pool + " has no concurrency keys or rate limits yet.", out, (p, o) -> {
            o.println(header(p));
            if (!p.path("rates").isEmpty()) {
                rates(p.path("rates")).print(o);
            }
            if (!p.path("keys").isEmpty()) {
                if (!p.path("rates").isEmpty()) {
                    o.println();
                }
                keys(p.path("keys")).print(o);
            }
        });
    }

    /** The pools of the answer: its {@code pools} list, or the answer itself when it is one pool or a list. */
    private static List<JsonNode> pools(JsonNode answer) {
        List<JsonNode> pools = new ArrayList<>();
        JsonNode list = answer.has("pools") ? answer.path("pools") : answer.isArray() ? answer : null;
        if (list != null) {
            list.forEach(pools::add);
        } else if (answer.has("pool")) {
            pools.add(answer);
        }
        return pools;
    }

    /**
     * {@code Pool gpu: 2 rate limits; 12 concurrency keys, 3 in use, 1 at limit (10 listed); held back:
     * 5 tasks by keys, 2 by rate limits}.
     */
    static String header(JsonNode p) {
        int rates = p.path("rates").size();
        int listed = p.path("keys").size();
        int total = p.path("keysTotal").asInt(listed);
        StringJoiner keys = new StringJoiner(", ");
        keys.add(total == 0 ? "no concurrency keys" : total + (total == 1 ? " concurrency key" : " concurrency keys"));
        if (total > 0 && p.path("keysInUse").isNumber()) {
            keys.add(p.path("keysInUse").asInt() + " in use");
        }
        if (total > 0 && p.path("keysAtLimit").isNumber()) {
            keys.add(p.path("keysAtLimit").asInt() + " at limit");
        }
        String shown = listed < total ? " (" + listed + " listed, those holding back the most tasks first; "
                + "--keys N lists more)" : "";
        StringBuilder header = new StringBuilder("Pool ").append(p.path("pool").asText()).append(": ")
                .append(rates == 0 ? "no rate limits" : rates + (rates == 1 ? " rate limit" : " rate limits"))
                .append("; ").append(keys).append(shown);
        long byKeys = p.path("heldBackByKeys").asLong(sum(p.path("keys"), "heldBack"));
        long byRates = p.path("heldBackByRates").asLong(sum(p.path("rates"), "heldBack"));
        if (byKeys + byRates > 0) {
            header.append("; held back: ").append(byKeys).append(byKeys == 1 ? " task" : " tasks")
                    .append(" by keys, ").append(byRates).append(" by rate limits");
        }
        return header.toString();
    }

    private static Table rates(JsonNode rates) {
        Table table = new Table("RATE LIMIT", "PER SECOND", "BURST", "AVAILABLE", "HELD BACK");
        for (JsonNode r : rates) {
            boolean defined = r.path("defined").asBoolean(r.path("perSecond").isNumber());
            table.row(r.path("name").asText(), defined ? decimal(r.path("perSecond"), 3) : "not defined",
                    defined ? Table.text(r, "burst") : null, defined ? decimal(r.path("available"), 2) : null,
                    r.path("heldBack").asLong());
        }
        return table;
    }

    private static Table keys(JsonNode keys) {
        Table table = new Table("KEY", "LIMIT", "RUNNING", "IN FORCE", "HELD BACK");
        for (JsonNode k : keys) {
            table.row(k.path("key").asText(), Table.text(k, "limit"),
                    k.path("running").asInt() + (k.path("atLimit").asBoolean(false) ? " (at limit)" : ""),
                    Table.text(k, "inForce"), k.path("heldBack").asLong());
        }
        return table;
    }

    /** A number to at most {@code places} decimals, without trailing zeros ({@code 10}, {@code 0.5}); null when not one. */
    static String decimal(JsonNode node, int places) {
        if (!node.isNumber()) {
            return null;
        }
        BigDecimal value = node.decimalValue().setScale(places, RoundingMode.HALF_UP).stripTrailingZeros();
        return value.scale() < 0 ? value.setScale(0).toPlainString() : value.toPlainString();
    }

    private static long sum(JsonNode list, String field) {
        long sum = 0;
        for (JsonNode item : list) {
            sum += item.path(field).asLong();
        }
        return sum;
    }
}
