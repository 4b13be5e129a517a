package io.cronoq.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The field readers every JSON body parser shares (a task's submission, a pool's sharing policy):
 * each reads one field of a body already read by {@link JsonBody} and refuses a wrong shape with a
 * 400 naming the field as the body spells it; {@link #read} turns what a reader did not foresee into
 * a 400 for its field, never a 500.
 */
final class BodyFields {

    private static final Logger log = LoggerFactory.getLogger(BodyFields.class);

    private BodyFields() {}

    /** What {@code reader} makes of {@code field}; anything it did not foresee is a 400 for the field, not a 500. */
    static <T> T read(String field, Supplier<T> reader) {
        try {
            return reader.get();
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw unforeseen(field, e);
        }
    }

    /** The 400 for a field whose reading failed in a way no reader foresaw. */
    static ApiException unforeseen(String field, Exception e) {
        log.debug("A body's {} could not be read", field, e);
        return ApiException.invalid(field, (field.equals("body") ? "the body" : field) + " could not be read ("
                + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + JsonBody.shown(e.getMessage(), 120))
                + "); see /openapi.json for what this body holds");
    }

    /** Who stamps a change of a pool's sharing or limits with its setter: for an owned {@code setBy}. */
    static final String SET_BY = "the gateway takes it from the calling credential ('gateway' on an open gateway)";
    /** Who stamps a change of a pool's sharing or limits with its time: for an owned {@code setAt}. */
    static final String SET_AT = "the gateway stamps it with its clock";

    /** Fields the server sets, each with who sets it from what, from pairs of them: for {@link #closed}. */
    static Map<String, String> serverFields(String... fieldsAndReasons) {
        Map<String, String> owned = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndReasons.length; i += 2) {
            owned.put(fieldsAndReasons[i], fieldsAndReasons[i + 1]);
        }
        return Collections.unmodifiableMap(owned);
    }

    /**
     * Refuses a body of a route that needs one when it is empty (no bytes, or only whitespace): a 400 for
     * {@code body} saying it should hold {@code holds}, as {@code example} does.
     */
    static void required(byte[] body, String holds, String example) {
        if (body != null) {
            for (byte b : body) {
                if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                    return;
                }
            }
        }
        throw ApiException.invalid("body", "the body is empty; this call needs a JSON object with " + holds + ", e.g. "
                + example);
    }

    /**
     * What {@code reader} makes of a body that must be one JSON object of only {@code fields}: an empty body is a
     * 400 saying so ({@link #required}), anything else a 400 showing {@code example}, saying the object holds
     * {@code holds}; a field the server sets ({@code owned}) or an unknown one is refused as {@link #closed} does.
     */
    static <T> T closedObject(byte[] body, String example, String holds, List<String> fields,
                              Map<String, String> owned, String what, Function<JsonNode, T> reader) {
        required(body, holds, example);
        JsonNode root = JsonBody.read(body, example);
        if (root == null || !root.isObject()) {
            throw ApiException.invalid("body", "the body must be a JSON object with " + holds + ", e.g. " + example);
        }
        return read("body", () -> {
            closed(root, "", fields, owned, what);
            return reader.apply(root);
        });
    }

    /**
     * Refuses a field of {@code object} that is not in {@code allowed}; {@code prefix} is the object's
     * place in the body ({@code ""} at the top, else e.g. {@code "resources."}), {@code what} names the
     * top-level object in the message ({@code "a task"}).
     */
    static void closed(JsonNode object, String prefix, List<String> allowed, String what) {
        closed(object, prefix, allowed, Map.of(), what);
    }

    /** The 400 for a body naming {@code field}, which the server sets: {@code reason} says who sets it from what. */
    static ApiException serverSet(String field, String reason) {
        return ApiException.invalid(field, field + " is set by the server, not by the request: " + reason
                + "; leave it out");
    }

    /**
     * As {@link #closed(JsonNode, String, List, String)}, and refuses a field the server sets, whatever its value
     * (null too) and even when {@code allowed} names it (a field the server sets only for some callers):
     * {@code owned} maps each such field's name to who sets it from what ({@link #SET_AT}), which the 400 for it
     * says. A view read back and sent again so learns which of its fields are not the request's.
     */
    static void closed(JsonNode object, String prefix, List<String> allowed, Map<String, String> owned,
                       String what) {
        Iterator<String> names = object.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            String reason = owned.get(name);
            if (reason != null) {
                throw serverSet(prefix + name, reason);
            }
            if (allowed.contains(name)) {
                continue;
            }
            throw ApiException.invalid(prefix + name, "unknown field '" + prefix + name + "'; "
                    + (prefix.isEmpty() ? what : prefix.substring(0, prefix.length() - 1)) + " has "
                    + String.join(", ", allowed));
        }
    }

    /**
     * A list of objects of only {@code fields}, each made by {@code item} of the object and its place in the body
     * ({@code concurrency[0]}); empty when absent or null. {@code shape} shows one such object in a refusal.
     */
    static <T> List<T> closedObjects(JsonNode node, String field, String shape, List<String> fields,
                                     BiFunction<JsonNode, String, T> item) {
        List<T> items = new ArrayList<>();
        if (node == null || node.isNull()) {
            return items;
        }
        if (!node.isArray()) {
            throw ApiException.invalid(field, field + " must be a list of " + shape + ", not " + type(node));
        }
        for (int i = 0; i < node.size(); i++) {
            String place = field + "[" + i + "]";
            JsonNode object = node.get(i);
            if (!object.isObject()) {
                throw ApiException.invalid(place, place + " must be an object " + shape + ", not " + type(object));
            }
            closed(object, place + ".", fields, place);
            items.add(item.apply(object, place));
        }
        return items;
    }

    /** A string field that must be there. */
    static String requiredText(JsonNode root, String field) {
        return optionalText(root, field).orElseThrow(() -> ApiException.invalid(field, field + " is required"));
    }

    /** A string field, empty when absent or null. */
    static Optional<String> optionalText(JsonNode root, String field) {
        return text(root.get(field), field);
    }

    /** A node that must be a string, empty when absent or null; {@code field} names it in a refusal. */
    static Optional<String> text(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!node.isTextual()) {
            throw ApiException.invalid(field, field + " must be a string, not " + type(node));
        }
        return Optional.of(node.asText());
    }

    /** An object of label name to value (empty when absent or null). */
    static Map<String, String> labels(JsonNode node, String field) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return labels;
        }
        if (!node.isObject()) {
            throw ApiException.invalid(field, field + " must be an object of name to value, e.g. {\"gpu\":\"a100\"}");
        }
        node.properties().forEach(e -> {
            if (!e.getValue().isTextual()) {
                throw ApiException.invalid(field + "." + e.getKey(), field + "." + e.getKey() + " must be a string");
            }
            labels.put(e.getKey(), e.getValue().asText());
        });
        return labels;
    }

    /** A whole number that fits an int, or {@code null} when absent or null. */
    static Integer integer(JsonNode node, String field) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw ApiException.invalid(field, field + " must be a whole number from " + Integer.MIN_VALUE + " to "
                    + Integer.MAX_VALUE);
        }
        return node.intValue();
    }

    /** The JSON type of a node in words ({@code number}, {@code array}), for refusals. */
    static String type(JsonNode node) {
        return node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
