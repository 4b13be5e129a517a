package io.cronoq.ops.http;

import io.cronoq.schemas.rules.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * How the command line reads a time and a duration from a flag. A time is an ISO-8601 instant
 * ({@code 2026-03-01T12:00:00Z}, or with an offset such as {@code +02:00}) or {@code +DURATION}:
 * that long after now, by the clock of the machine running the command. A duration is typed as
 * people type it ({@code 30s}, {@code 5m}, {@code 1h30m}; see {@link Durations}). A bad value is an
 * {@link IllegalArgumentException} naming the flag, the value and the accepted forms (exit 2).
 */
final class TimeFlags {

    /** The accepted forms of a time, as help and messages state them. */
    static final String TIME_FORMS = "an ISO-8601 instant such as 2026-03-01T12:00:00Z, or +DURATION from now "
            + "such as +10m or +1h30m";

    private TimeFlags() {
    }

    /** The time {@code text} names, a relative one counted from {@code clock}'s now. */
    static Instant time(String flag, String text, Clock clock) {
        String s = text.strip();
        if (s.startsWith("+")) {
            Duration ahead = parse(s.substring(1)).filter(d -> !d.isNegative()).orElseThrow(() ->
                    new IllegalArgumentException(flag + " '" + text + "' is not a time; after + comes a duration "
                            + "such as +10m or +1h30m"));
            return clock.instant().plus(ahead);
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            String hint = s.matches("\\d{4}-\\d{2}-\\d{2}") ? " (a date needs a time of day and zone: "
                    + s + "T00:00:00Z)" : "";
            throw new IllegalArgumentException(flag + " '" + text + "' is not a time; use " + TIME_FORMS + hint);
        }
    }

    /** The duration {@code text} names, zero or more. */
    static Duration duration(String flag, String text) {
        Duration d = parse(text).orElseThrow(() -> new IllegalArgumentException(
                flag + " '" + text + "' is not a duration; use " + Durations.FORMS));
        if (d.isNegative()) {
            throw new IllegalArgumentException(flag + " '" + text + "' is negative; give 0 or more, e.g. "
                    + flag + " 30s");
        }
        return d;
    }

    /** The duration {@code text} names; it must be at least a millisecond. */
    static Duration positiveDuration(String flag, String text) {
        Duration d = duration(flag, text);
        if (d.toMillis() <= 0) {
            throw new IllegalArgumentException(flag + " '" + text + "' is zero; give at least 1ms, e.g. "
                    + flag + " 30m");
        }
        return d;
    }

    private static Optional<Duration> parse(String text) {
        try {
            return Optional.of(Durations.parse(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
