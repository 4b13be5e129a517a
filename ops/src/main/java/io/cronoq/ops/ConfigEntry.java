package io.cronoq.ops;

import io.cronoq.schemas.rules.Durations;
import io.cronoq.schemas.rules.Violation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * One entry of an array of tables in the config file ({@code [[sharing.tenants]]}, {@code [[limits.rates]]}),
 * read key by key: every refusal names the entry and the key, says what is wrong and shows what to write.
 * Unknown keys are refused when the entry is made.
 */
final class ConfigEntry {

    private final String where;
    private final String separator;
    private final Map<String, Object> values;

    /**
     * An entry named {@code where} (e.g. {@code limits.rates[0]}) whose key {@code k} is named
     * {@code where + separator + k} in messages (e.g. {@code limits.rates[0].perSecond}).
     *
     * @throws IllegalArgumentException when the entry has a key not in {@code known}
     */
    ConfigEntry(String where, String separator, Map<String, Object> values, Set<String> known) {
        this.where = where;
        this.separator = separator;
        this.values = values;
        for (String key : values.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(where + ": unknown key '" + key + "'; known keys: " + known);
            }
        }
    }

    /** The entry, as messages name it: {@code limits.rates[0]}. */
    String where() {
        return where;
    }

    /** Key {@code key} of this entry, as messages name it: {@code limits.rates[0].perSecond}. */
    String name(String key) {
        return where + separator + key;
    }

    /** The raw value of {@code key}, or null when absent. */
    Object get(String key) {
        return values.get(key);
    }

    /** A required string, e.g. {@code pool = "gpu"} ({@code example} is what the message suggests). */
    String text(String key, String example) {
        Object value = values.get(key);
        if (value == null) {
            throw refused(key, key + " is missing; e.g. " + key + " = \"" + example + "\"");
        }
        if (!(value instanceof String text)) {
            throw refused(key, key + " must be a string, e.g. " + key + " = \"" + value + "\"");
        }
        return text;
    }

    /** True, false, or null when absent. */
    Boolean bool(String key) {
        Object value = values.get(key);
        if (value != null && !(value instanceof Boolean)) {
            throw refused(key, key + " must be true or false (no quotes)");
        }
        return (Boolean) value;
    }

    /** A number, or null when absent. */
    Double number(String key) {
        Object value = values.get(key);
        if (value != null && !(value instanceof Number)) {
            throw refused(key, key + " must be a number, e.g. " + key + " = 3 or " + key + " = 0.5");
        }
        return value == null ? null : ((Number) value).doubleValue();
    }

    /**
     * A whole number, or null when absent; {@code hint} ends the refusal of another value
     * ({@code ", e.g. max = 2"} makes {@code ...; give a whole number, e.g. max = 2}).
     */
    Integer whole(String key, String hint) {
        return whole(key, values.get(key), hint);
    }

    /** {@code value}, named {@code field} in messages, as a whole number, or null when absent (see {@link #whole(String, String)}). */
    Integer whole(String field, Object value, String hint) {
        if (value == null) {
            return null;
        }
        boolean whole = value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof BigInteger || (value instanceof BigDecimal d && d.stripTrailingZeros().scale() <= 0);
        if (!whole || ((Number) value).longValue() > Integer.MAX_VALUE
                || ((Number) value).longValue() < Integer.MIN_VALUE) {
            throw refused(field, field + " is " + value + "; give a whole number" + hint);
        }
        return ((Number) value).intValue();
    }

    /** A duration in quotes ({@code "30s"}, {@code "PT45S"}) of 0 or more, in milliseconds; null when absent. */
    Long duration(String key) {
        Object value = values.get(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String text)) {
            throw refused(key, key + " must be a duration in quotes, e.g. " + key + " = \"30s\"");
        }
        Duration d;
        try {
            d = Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw refused(key, key + " " + e.getMessage());
        }
        if (d.isNegative()) {
            throw refused(key, key + " is " + text + "; a grace is 0 or more, e.g. " + key + " = \"30s\"");
        }
        return d.toMillis();
    }

    /**
     * A refusal of {@code key}: a message that starts with the key has it replaced by the key's full
     * name ({@code limits.rates[0].perSecond is 0.0; ...}); any other follows the name and a colon.
     */
    IllegalArgumentException refused(String key, String message) {
        return new IllegalArgumentException(named(key, key, message));
    }

    /**
     * A broken rule of the event this entry makes, told in the entry's keys: {@code keyOfField} maps
     * an event field to the key that gave it (e.g. {@code name} to {@code key}); other fields keep their name.
     */
    IllegalArgumentException refused(Violation v, Map<String, String> keyOfField) {
        String key = keyOfField.getOrDefault(v.field(), v.field());
        return new IllegalArgumentException(named(v.field(), key, v.message()));
    }

    /** A refusal of the entry as a whole: {@code limits.keys[1]: ...}. */
    IllegalArgumentException refusedEntry(String message) {
        return new IllegalArgumentException(where + ": " + message);
    }

    private String named(String field, String key, String message) {
        if (message.startsWith(field) && (message.length() == field.length()
                || !Character.isLetterOrDigit(message.charAt(field.length())))) {
            return name(key) + message.substring(field.length());
        }
        return name(key) + ": " + message;
    }
}
