package io.cronoq.schemas.rules;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses resource quantities the way Kubernetes writes them, and refuses everything else with the
 * value and the accepted forms: memory and disk are plain bytes or a number with one of the binary
 * suffixes {@code Ki Mi Gi Ti Pi} (powers of 1024) or the decimal ones {@code k M G T P} (powers of
 * 1000); cpu is whole or fractional cores ({@code 2}, {@code 0.5}) or millicores ({@code 500m}).
 * A unit is never silently read as bytes: {@code 8GB}, {@code 8K} or {@code 512m} of memory are
 * rejected, each with a hint. Pure and thread-safe.
 */
public final class Quantities {

    /** The accepted memory and disk forms, as error messages and docs state them. */
    public static final String BYTES_FORMS = "plain bytes (e.g. 1073741824) or a number with a suffix: "
            + "Ki Mi Gi Ti Pi (powers of 1024) or k M G T P (powers of 1000), e.g. 8Gi, 1.5Gi, 500M";
    /** The accepted cpu forms. */
    public static final String CPU_FORMS = "whole or fractional cores (e.g. 2, 0.5) or millicores with the "
            + "suffix m (e.g. 500m), at most 3 decimal places of a core";

    private static final Pattern QUANTITY = Pattern.compile("(\\d+(?:\\.\\d+)?|\\.\\d+)([A-Za-z]*)");
    private static final BigDecimal MAX_LONG = BigDecimal.valueOf(Long.MAX_VALUE);
    private static final BigDecimal THOUSAND = BigDecimal.valueOf(1000);
    private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi"};
    private static final String[] DECIMAL = {"k", "M", "G", "T", "P"};

    private Quantities() {}

    /**
     * The number of bytes a memory or disk quantity stands for; a fraction of a byte rounds up (as
     * Kubernetes does).
     *
     * @param field the field named in the error, e.g. {@code resources.memory}
     * @throws InvalidInputException naming the field, the value and the accepted forms
     */
    public static long parseBytes(String field, String quantity) {
        Matcher m = match(field, quantity, BYTES_FORMS);
        BigDecimal number = new BigDecimal(m.group(1));
        BigDecimal bytes = number.multiply(BigDecimal.valueOf(multiplier(field, quantity, m.group(2))))
                .setScale(0, RoundingMode.CEILING);
        if (bytes.compareTo(MAX_LONG) > 0) {
            throw new InvalidInputException(field, field + " '" + quantity + "' is more bytes than cronoq can count "
                    + "(the most is about 8 exbibytes)");
        }
        return bytes.longValueExact();
    }

    /**
     * The thousandths of a core a cpu quantity stands for: {@code "2"} is 2000, {@code "0.5"} and
     * {@code "500m"} are 500. Finer than a thousandth of a core is refused, as Kubernetes refuses it.
     *
     * @param field the field named in the error, e.g. {@code resources.cpu}
     * @throws InvalidInputException naming the field, the value and the accepted forms
     */
    public static long parseCpuMillis(String field, String quantity) {
        Matcher m = match(field, quantity, CPU_FORMS);
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(2);
        BigDecimal millis;
        if (suffix.isEmpty()) {
            millis = number.multiply(THOUSAND);
        } else if (suffix.equals("m")) {
            millis = number;
        } else {
            throw new InvalidInputException(field, field + " '" + quantity + "' has the unit '" + suffix
                    + "', which is not a cpu unit; cpu is " + CPU_FORMS);
        }
        if (millis.stripTrailingZeros().scale() > 0) {
            throw new InvalidInputException(field, field + " '" + quantity + "' is finer than 1m (a thousandth of a "
                    + "core); cpu is " + CPU_FORMS);
        }
        if (millis.compareTo(MAX_LONG) > 0) {
            throw new InvalidInputException(field, field + " '" + quantity + "' is more cpu than cronoq can count");
        }
        return millis.longValueExact();
    }

    /** A byte count in the largest binary unit that divides it exactly: {@code 8589934592} is {@code 8Gi}. */
    public static String formatBytes(long bytes) {
        if (bytes <= 0) {
            return Long.toString(bytes);
        }
        for (int i = BINARY.length - 1; i >= 0; i--) {
            long unit = 1L << (10 * (i + 1));
            if (bytes % unit == 0) {
                return bytes / unit + BINARY[i];
            }
        }
        return Long.toString(bytes);
    }

    /** Thousandths of a core as a cpu quantity: 2000 is {@code 2}, 500 is {@code 500m}. */
    public static String formatCpu(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : millis + "m";
    }

    private static Matcher match(String field, String quantity, String forms) {
        if (quantity == null || quantity.isBlank()) {
            throw new InvalidInputException(field, field + " is empty; it is " + forms);
        }
        Matcher m = QUANTITY.matcher(quantity.strip());
        if (!m.matches()) {
            String why = quantity.strip().startsWith("-") ? " is negative" : " is not a quantity";
            throw new InvalidInputException(field, field + " '" + quantity + "'" + why + "; it is " + forms);
        }
        return m;
    }

    private static long multiplier(String field, String quantity, String suffix) {
        if (suffix.isEmpty()) {
            return 1;
        }
        for (int i = 0; i < BINARY.length; i++) {
            if (BINARY[i].equals(suffix)) {
                return 1L << (10 * (i + 1));
            }
            if (DECIMAL[i].equals(suffix)) {
                long m = 1;
                for (int j = 0; j <= i; j++) {
                    m *= 1000;
                }
                return m;
            }
        }
        throw new InvalidInputException(field, field + " '" + quantity + "' has the unit '" + suffix + "', which "
                + "cronoq does not read" + hint(suffix) + "; it is " + BYTES_FORMS);
    }

    /** Why a near miss is refused, for the suffixes people write by habit. */
    private static String hint(String suffix) {
        if (suffix.equals("m")) {
            return " ('m' is a thousandth, as in cpu 500m; for megabytes write M or Mi)";
        }
        if (suffix.equals("K")) {
            return " (write k for 1000 or Ki for 1024)";
        }
        if (suffix.length() >= 2 && (suffix.endsWith("B") || suffix.endsWith("b"))) {
            String bare = suffix.substring(0, suffix.length() - 1);
            if (bare.endsWith("i")) {
                bare = bare.substring(0, bare.length() - 1);
            }
            String unit = bare.toUpperCase(Locale.ROOT);
            if (!"KMGTP".contains(unit) || unit.length() != 1) {
                return "";
            }
            String decimal = unit.equals("K") ? "k" : unit;
            return " (drop the B: write " + decimal + " for powers of 1000 or " + unit + "i for powers of 1024)";
        }
        return "";
    }
}
