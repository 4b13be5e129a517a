package io.cronoq.ops.replay;

import io.cronoq.schemas.rules.Durations;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads the times and durations analysts type (durations are written by {@link Durations#words(long)}). */
final class Times {

    /** What a time flag accepts, for help and error messages. */
    static final String TIME_FORMATS = "an ISO-8601 time such as 2026-03-01T09:30:00Z, 2026-03-01T10:30:00+01:00, "
            + "2026-03-01T09:30:00 (UTC) or 2026-03-01 (midnight UTC)";

    private Times() {}

    /** Parses an ISO-8601 instant, offset date-time, local date-time (UTC) or date (midnight UTC). */
    static Instant parse(String text) {
        String s = text.trim();
        try {
            return Instant.parse(s);
        } catch (DateTimeException ignored) {
            // not an instant with Z; try the other accepted forms
        }
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeException ignored) {
            // no offset
        }
        try {
            return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException ignored) {
            // not a date-time
        }
        try {
            return LocalDate.parse(s).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("'" + text + "' is not a time; use " + TIME_FORMATS, e);
        }
    }

    /**
     * Picocli converter for duration flags ({@code 30s}, {@code 10m}, {@code 1h30m}, or ISO-8601 like
     * {@code PT30S}; 0 or more): a bad value is a usage error naming the flag.
     */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration d = Converters.parsed(value, Durations::parse);
            if (d.isNegative()) {
                throw new TypeConversionException("'" + value + "' is negative; give 0 or more, e.g. 30s or 10m");
            }
            try {
                d.toMillis();
            } catch (ArithmeticException e) {
                throw new TypeConversionException("'" + value + "' is too long to count in milliseconds");
            }
            return d;
        }
    }

    /** Picocli converter for time flags: a bad value is a usage error naming the flag. */
    static final class InstantConverter extends Converters.Parsing<Instant> {
        InstantConverter() { super(Times::parse); }
    }
}
