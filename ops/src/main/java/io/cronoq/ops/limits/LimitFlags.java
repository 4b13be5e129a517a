package io.cronoq.ops.limits;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import io.cronoq.schemas.rules.LimitRules;
import io.cronoq.schemas.rules.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A task's concurrency keys and rate limits as the command line writes them ({@code KEY[:MAX]},
 * {@code NAME[:UNITS]}), read and checked by the scheduler's own rules ({@link LimitRules}) in one
 * place; and a broken limit rule told in terms of the flag that gave the value.
 */
public final class LimitFlags {

    /** The accepted form of a concurrency key, as help and messages state it. */
    public static final String KEY_FORM = "KEY[:MAX], e.g. customer-42 or customer-42:2 (a key that itself "
            + "contains ':' and has no max ends with ':', e.g. tenant:acme:)";

    /** The accepted form of a rate limit's use, as help and messages state it. */
    public static final String RATE_FORM = "NAME[:UNITS], e.g. openai or openai:3 (1 unit when left out)";

    private LimitFlags() {}

    /**
     * The concurrency keys of these {@code KEY[:MAX]} texts, given by {@code flag}, checked as one task's.
     *
     * @throws IllegalArgumentException naming the flag and its value, what is wrong and the accepted form
     */
    public static List<ConcurrencyKey> keys(String flag, List<String> texts) {
        List<ConcurrencyKey> keys = new ArrayList<>();
        for (String text : texts) {
            int colon = text.lastIndexOf(':');
            String max = colon < 0 ? "" : text.substring(colon + 1);
            keys.add(new ConcurrencyKey(colon < 0 ? text : text.substring(0, colon),
                    max.isEmpty() ? null : count(flag, text, "MAX", max, KEY_FORM)));
        }
        LimitRules.concurrency(keys).ifPresent(v -> {
            throw refusal(flag, texts, "concurrency", v);
        });
        return keys;
    }

    /**
     * The rate limits of these {@code NAME[:UNITS]} texts, given by {@code flag}, checked as one task's.
     *
     * @throws IllegalArgumentException naming the flag and its value, what is wrong and the accepted form
     */
    public static List<RateLimitUse> rates(String flag, List<String> texts) {
        List<RateLimitUse> uses = new ArrayList<>();
        for (String text : texts) {
            int colon = text.lastIndexOf(':');
            uses.add(new RateLimitUse(colon < 0 ? text : text.substring(0, colon),
                    colon < 0 ? 1 : count(flag, text, "UNITS", text.substring(colon + 1), RATE_FORM)));
        }
        LimitRules.rateLimits(uses).ifPresent(v -> {
            throw refusal(flag, texts, "rateLimits", v);
        });
        return uses;
    }

    /**
     * A broken rule of an admin's limit change as a usage error: the field is replaced by the flag that
     * gave it ({@code flagOfField}, e.g. {@code perSecond} to {@code --per-second}), so the message reads
     * {@code --per-second is 0.0; a rate limit refills above 0 ...}.
     */
    public static IllegalArgumentException refusal(Violation v, Map<String, String> flagOfField) {
        String flag = flagOfField.getOrDefault(v.field(), v.field());
        String message = v.message();
        if (message.startsWith(v.field() + " ")) {
            return new IllegalArgumentException(flag + message.substring(v.field().length()));
        }
        return new IllegalArgumentException(flag + ": " + message);
    }

    /** A task's broken rule named by the flag and the text of the value that broke it. */
    private static IllegalArgumentException refusal(String flag, List<String> texts, String list, Violation v) {
        String field = v.field();
        if (!field.startsWith(list + "[")) {
            return new IllegalArgumentException(flag + ": " + v.message() + "; give fewer " + flag);
        }
        int index = Integer.parseInt(field.substring(list.length() + 1, field.indexOf(']')));
        String prefix = list + "[" + index + "]";
        String message = v.message().replace(prefix + ".", "").replace(prefix, "it");
        return new IllegalArgumentException(flag + " '" + texts.get(index) + "': " + message);
    }

    private static int count(String flag, String text, String what, String number, String form) {
        try {
            return Integer.parseInt(number.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " '" + text + "': " + what + " '" + number
                    + "' is not a whole number; write " + form);
        }
    }
}
