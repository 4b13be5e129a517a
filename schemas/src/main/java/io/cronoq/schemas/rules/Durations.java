package io.cronoq.schemas.rules;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as text, in one place for everywhere cronoq shows or takes one (journal causes, waiting
 * reasons, the CLI, the agent's messages). Written in words: {@code 250ms}, {@code 1.5s}, {@code 30s},
 * {@code 2m5s}, {@code 1h30m}, {@code 7d}. Read from what people type, in whole units: {@code 500ms},
 * {@code 5s}, {@code 2m}, {@code 1h30m}, or ISO-8601 such as {@code PT1.5S}.
 */
public final class Durations {

    /** The accepted forms, as messages state them. */
    public static final String FORMS = "a number with a unit, e.g. 500ms, 5s, 2m, 1h30m (or ISO-8601 like PT5S)";

    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private Durations() {}

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException with the text and the accepted forms
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.strip();
        if (s.startsWith("P") || s.startsWith("p")) {
            try {
                return Duration.parse(s);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not a duration; use " + FORMS, e);
            }
        }
        Matcher m = PART.matcher(s);
        Duration total = Duration.ZERO;
        int at = 0;
        while (m.find() && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            total = total.plus(switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            });
            at = m.end();
        }
        if (s.isEmpty() || at != s.length()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use " + FORMS);
        }
        return total;
    }

    /** {@link #words(long)} of a duration. */
    public static String words(Duration d) {
        return words(d.toMillis());
    }

    /**
     * A duration in milliseconds in words, to the two largest units that matter: {@code 250ms},
     * {@code 1.5s} (tenths below ten seconds), {@code 30s}, {@code 2m5s}, {@code 1h30m}, {@code 3d4h};
     * a negative one with a minus sign.
     */
    public static String words(long ms) {
        if (ms < 0) {
            return "-" + words(-ms);
        }
        if (ms < 1_000) {
            return ms + "ms";
        }
        long s = ms / 1_000;
        if (s < 60) {
            long tenths = (ms % 1_000) / 100;
            return tenths == 0 || s >= 10 ? s + "s" : s + "." + tenths + "s";
        }
        long d = s / 86_400;
        long h = (s % 86_400) / 3_600;
        long m = (s % 3_600) / 60;
        long rest = s % 60;
        StringBuilder b = new StringBuilder();
        if (d > 0) {
            b.append(d).append('d');
        }
        if (h > 0) {
            b.append(h).append('h');
        }
        if (m > 0 && d == 0) {
            b.append(m).append('m');
        }
        if (rest > 0 && h == 0 && d == 0) {
            b.append(rest).append('s');
        }
        return b.toString();
    }
}
