package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.ops.sharing.SharingFlags;
import io.cronoq.schemas.rules.Durations;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;
import picocli.CommandLine.Command;

/**
 * {@code cronoq tenants}: how each pool is shared between tenants (teams): per pool its slots and
 * preemption, and per tenant its weight, the slots it holds, its fair share, its quotas with what it
 * holds in each, and its waiting tasks. {@code set} and {@code preemption} change the policy.
 */
@Command(name = "tenants", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Show how pools are shared between tenants: weight, slots in use, fair share, quotas, "
                + "waiting tasks and the oldest wait, a table per pool.",
            "FAIR SHARE is the slots a tenant's weight entitles it to among the tenants holding or waiting; "
                    + "a quota reads SCOPE GUARANTEED/MAX (IN USE), '-' for no max."},
        subcommands = {TenantsSetCommand.class, TenantsPreemptionCommand.class},
        footer = {"", "Examples:",
            "  cronoq tenants                  # every pool",
            "  cronoq tenants --pool gpu --json",
            "  cronoq tenants set --pool gpu --tenant research --weight 3 \\",
            "      --quota gpu=a100:guaranteed=4:max=16",
            "  cronoq tenants preemption --pool gpu --off"})
public final class TenantsCommand extends PoolListing {

    /** Now, to tell how long the oldest task has waited; a seam for tests. */
    Clock clock = Clock.systemUTC();

    /** Lists {@code /v1/tenants}. */
    public TenantsCommand() {
        super("/v1/tenants");
    }

    @Override
    void show(JsonNode answer, PrintWriter out) {
        showEach(answer.path("pools"), pool == null ? "No pool has tenants yet: no task has been submitted and no "
                + "policy set." : "Pool " + pool + " has no tenants yet: no task holds or waits there and no policy "
                + "is set.", out, (p, o) -> {
            o.println(header(p));
            table(p).print(o);
        });
    }

    /** {@code Pool gpu: 24 slots, 8 GPUs; preemption on (after 30s below a guarantee)}. */
    private static String header(JsonNode p) {
        String preemption = p.path("preemption").asBoolean(true)
                ? "preemption on (after " + Durations.words(p.path("preemptionGraceMs").asLong()) + " below a guarantee)"
                : "preemption off";
        return String.format(Locale.ROOT, "Pool %s: %d slots, %d GPUs; %s", p.path("pool").asText(),
                p.path("slots").asInt(), p.path("gpus").asInt(), preemption);
    }

    private Table table(JsonNode p) {
        Table table = new Table("TENANT", "WEIGHT", "IN USE", "FAIR SHARE", "QUOTAS", "WAITING", "OLDEST WAIT");
        for (JsonNode t : p.path("tenants")) {
            int gpus = t.path("gpusInUse").asInt();
            table.row(t.path("tenant").asText(), number(t.path("weight").asDouble(1)),
                    t.path("slotsInUse").asInt() + (gpus > 0 ? ", " + gpus + " GPUs" : ""),
                    number(t.path("fairShare").asDouble()), quotas(t.path("quotas")), t.path("waiting").asLong(),
                    waited(t));
        }
        return table;
    }

    /** {@code gpu=a100 4/16 (3 in use); pool 2/- (5 in use)}, or null (shown {@code -}) without quotas. */
    static String quotas(JsonNode quotas) {
        if (quotas.isEmpty()) {
            return null;
        }
        StringJoiner out = new StringJoiner("; ");
        for (JsonNode q : quotas) {
            Map<String, String> labels = new HashMap<>();
            q.path("labels").fields().forEachRemaining(label -> labels.put(label.getKey(), label.getValue().asText()));
            Integer max = q.path("max").isNumber() ? q.path("max").asInt() : null;
            out.add(SharingFlags.describe(labels, q.path("guaranteed").asInt(), max) + " ("
                    + q.path("inUse").asInt() + " in use)");
        }
        return out.toString();
    }

    /** A weight or share: whole numbers as such, others to one decimal ({@code 3}, {@code 4.5}). */
    static String number(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
    }

    /**
     * How long the tenant's oldest task has waited: by the gateway's clock ({@code oldestWaitingMs}), else
     * since {@code oldestWaitingSince} by this machine's; null (shown {@code -}) when nothing waits.
     */
    private String waited(JsonNode tenant) {
        JsonNode ms = tenant.path("oldestWaitingMs");
        if (ms.isNumber()) {
            return Durations.words(ms.asLong());
        }
        Instant at = instant(tenant.path("oldestWaitingSince"));
        return at == null ? null : Durations.words(Math.max(0, Duration.between(at, clock.instant()).toMillis()));
    }

    /** A time as the gateway writes it: ISO-8601 text, or epoch seconds (with a fraction) or milliseconds. */
    static Instant instant(JsonNode node) {
        if (node.isTextual()) {
            try {
                return Instant.parse(node.asText());
            } catch (DateTimeParseException e) {
                return null;
            }
        }
        if (node.isFloatingPointNumber()) {
            return Instant.ofEpochMilli(Math.round(node.asDouble() * 1000));
        }
        return node.isIntegralNumber() ? Instant.ofEpochMilli(node.asLong()) : null;
    }
}
