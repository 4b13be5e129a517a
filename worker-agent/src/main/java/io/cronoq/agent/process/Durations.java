package io.cronoq.agent.process;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads and writes durations the way people type them on a command line: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h30m}. */
public final class Durations {

    /** The accepted forms, as messages state them. */
    public static final String FORMS = "a number with a unit, e.g. 500ms, 5s, 2m, 1h30m (or ISO-8601 like PT5S)";

    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    private Durations() {
    }

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

    /** Writes a duration compactly: {@code 5s}, {@code 300ms}, {@code 1h30m}. */
    public static String format(Duration d) {
        if (d.isZero()) {
            return "0s";
        }
        if (d.toMillis() < 1000 || d.toMillisPart() != 0) {
            return d.toMillis() + "ms";
        }
        StringBuilder sb = new StringBuilder();
        if (d.toHours() > 0) {
            sb.append(d.toHours()).append('h');
        }
        if (d.toMinutesPart() > 0) {
            sb.append(d.toMinutesPart()).append('m');
        }
        if (d.toSecondsPart() > 0) {
            sb.append(d.toSecondsPart()).append('s');
        }
        return sb.toString();
    }
}
