package io.cronoq.gateway;

import static io.cronoq.gateway.BodyFields.closedObject;
import static io.cronoq.gateway.BodyFields.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.schemas.rules.LimitRules;
import io.cronoq.schemas.rules.Violation;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the bodies of the limit routes into the {@link LimitSet} the scheduler reads: a concurrency
 * key's limit ({@code PUT /v1/pools/{pool}/limits/keys}: {@code key} and {@code max}, null removing
 * it) and a rate limit ({@code PUT /v1/pools/{pool}/limits/rates/{name}}: {@code perSecond} and
 * {@code burst}; its {@code DELETE} removes it). Shapes are checked here, every rule by
 * {@link LimitRules} — the scheduler's own — and any failure is a 400 naming the field as the request
 * spells it ({@code key}, {@code max}, {@code perSecond}, {@code burst}; {@code pool} and {@code name}
 * for the path). A field the views show but the server sets ({@code setBy}, {@code heldBack}) is a 400
 * saying who sets it.
 */
final class LimitSetParser {

    static final List<String> KEY_FIELDS = List.of("key", "max");
    static final List<String> RATE_FIELDS = List.of("perSecond", "burst");

    private static final String KEY_FIGURE = "the scheduler computes it from the key's attempts and waiting tasks";
    private static final String RATE_FIGURE = "the scheduler computes it from the bucket and the tasks that name it";

    /** What a key's view and a key limit's answer show that the server sets: refused in a body. */
    static final Map<String, String> KEY_SERVER_FIELDS = BodyFields.serverFields(
            "pool", "the path names the pool",
            "kind", "the route says which kind of limit it sets",
            "setBy", BodyFields.SET_BY,
            "setAt", BodyFields.SET_AT,
            "running", KEY_FIGURE,
            "inForce", KEY_FIGURE,
            "atLimit", KEY_FIGURE,
            "heldBack", KEY_FIGURE);
    /** What a rate limit's view and answer show that the server sets: refused in a body. */
    static final Map<String, String> RATE_SERVER_FIELDS = BodyFields.serverFields(
            "pool", "the path names the pool",
            "name", "the path names the rate limit",
            "kind", "the route says which kind of limit it sets",
            "setBy", BodyFields.SET_BY,
            "setAt", BodyFields.SET_AT,
            "defined", RATE_FIGURE,
            "available", RATE_FIGURE,
            "heldBack", RATE_FIGURE);

    private static final String KEY_EXAMPLE = "{\"key\":\"customer-42\",\"max\":2}";
    private static final String RATE_EXAMPLE = "{\"perSecond\":10,\"burst\":20}";

    private LimitSetParser() {}

    /** A key's limit in {@code pool} as this body sets it (max null: removed), by {@code setBy} at {@code at}. */
    static LimitSet key(String pool, byte[] body, String setBy, Instant at) {
        LimitSet limit = closedObject(body, KEY_EXAMPLE, "key and max", KEY_FIELDS, KEY_SERVER_FIELDS,
                "a concurrency key's limit",
                root -> LimitSet.newBuilder()
                        .setPool(pool)
                        .setKind(LimitKind.CONCURRENCY_KEY)
                        .setName(read("key", () -> key(root.get("key"))))
                        .setMax(read("max", () -> max(root)))
                        .setSetBy(setBy)
                        .setSetAt(at)
                        .build());
        return checked(limit, "key");
    }

    /** Rate limit {@code name} of {@code pool} as this body defines it, by {@code setBy} at {@code at}. */
    static LimitSet rate(String pool, String name, byte[] body, String setBy, Instant at) {
        LimitSet limit = closedObject(body, RATE_EXAMPLE, "perSecond and, if you like, burst", RATE_FIELDS,
                RATE_SERVER_FIELDS, "a rate limit", root -> LimitSet.newBuilder()
                        .setPool(pool)
                        .setKind(LimitKind.RATE_LIMIT)
                        .setName(name)
                        .setPerSecond(read("perSecond", () -> perSecond(root.get("perSecond"))))
                        .setBurst(read("burst", () -> burst(root.get("burst"))))
                        .setSetBy(setBy)
                        .setSetAt(at)
                        .build());
        return checked(limit, "name");
    }

    /** The removal of rate limit {@code name} of {@code pool}, by {@code setBy} at {@code at}. */
    static LimitSet removeRate(String pool, String name, String setBy, Instant at) {
        return checked(LimitSet.newBuilder()
                .setPool(pool)
                .setKind(LimitKind.RATE_LIMIT)
                .setName(name)
                .setSetBy(setBy)
                .setSetAt(at)
                .build(), "name");
    }

    /** Applies {@link LimitRules#check}; the event's {@code name} is reported as the request's {@code nameField}. */
    private static LimitSet checked(LimitSet limit, String nameField) {
        Optional<Violation> broken = read("body", () -> LimitRules.check(limit));
        if (broken.isPresent()) {
            Violation v = broken.get();
            if (v.field().equals("name") && !nameField.equals("name")) {
                String message = v.message().startsWith("name") ? nameField + v.message().substring(4) : v.message();
                throw ApiException.invalid(nameField, message);
            }
            throw ApiException.invalid(v.field(), v.message());
        }
        return limit;
    }

    private static String key(JsonNode node) {
        if (node == null || node.isNull()) {
            throw ApiException.invalid("key", "key is required: the concurrency key to limit, e.g. " + KEY_EXAMPLE);
        }
        if (!node.isTextual()) {
            throw ApiException.invalid("key", "key must be a string, not " + BodyFields.type(node) + ", e.g. "
                    + KEY_EXAMPLE);
        }
        return node.asText();
    }

    /** The key's limit: a whole number (its range is {@link LimitRules#check}'s), or an explicit null that removes it. */
    private static Integer max(JsonNode root) {
        JsonNode node = root.get("max");
        String allowed = "a key's limit in the pool is 1 to " + LimitRules.MAX_COUNT
                + " attempts at once, or null to remove it";
        if (node == null) {
            throw ApiException.invalid("max", "max is required: " + allowed + ", e.g. " + KEY_EXAMPLE);
        }
        if (node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw ApiException.invalid("max", "max must be a whole number; " + allowed);
        }
        return node.intValue();
    }

    private static Double perSecond(JsonNode node) {
        String allowed = "units refilled per second, above 0 and at most " + (long) LimitRules.MAX_PER_SECOND
                + " (0.5 is one unit every two seconds)";
        if (node == null || node.isNull()) {
            throw ApiException.invalid("perSecond", "perSecond is required: " + allowed + ", e.g. " + RATE_EXAMPLE
                    + "; DELETE the rate limit to remove it");
        }
        if (!node.isNumber()) {
            throw ApiException.invalid("perSecond", "perSecond must be a number, not " + BodyFields.type(node)
                    + "; " + allowed);
        }
        return node.decimalValue().doubleValue(); // beyond a double's range: infinite, which the rules refuse
    }

    private static Integer burst(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw ApiException.invalid("burst", "burst must be a whole number of units, 1 to " + LimitRules.MAX_COUNT
                    + " (leave it out for perSecond rounded up)");
        }
        return node.intValue();
    }
}
