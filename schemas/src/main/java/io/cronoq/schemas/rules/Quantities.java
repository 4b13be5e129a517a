package io.cronoq.schemas.rules;

import java.math.BigInteger;
import java.util.Locale;

/**
 * Parses resource quantities in the whole grammar Kubernetes reads (an optional sign, a decimal
 * number that may start or end with its point, then a binary suffix {@code Ki Mi Gi Ti Pi Ei}, a
 * decimal one {@code n u m k M G T P E} or an exponent {@code e}/{@code E} with a signed integer),
 * and refuses only what is a likely mistake, each time naming the field, the value and the fix: a
 * unit Kubernetes does not read ({@code 8GB}, {@code 8K}), {@code m} on bytes ({@code 512m} of
 * memory), a value that is not a whole number of bytes ({@code 1.0001Ki}), cpu finer than
 * {@code 1m}, a negative request, a value beyond a {@code long}, and on cpu the size suffixes.
 * Memory and disk are bytes; cpu is thousandths of a core. Exact (no rounding, no floating point),
 * fast on hostile input such as {@code 1e999999999}, pure and thread-safe.
 */
public final class Quantities {

    /** The accepted memory and disk forms, as error messages and docs state them. */
    public static final String BYTES_FORMS = "a whole number of bytes: plain (e.g. 1073741824), with a suffix "
            + "Ki Mi Gi Ti Pi Ei (powers of 1024) or k M G T P E (powers of 1000), or with an exponent "
            + "(e.g. 1e9, 1.5E+3); e.g. 8Gi, 1.5Gi, 500M, +1Ki, 1.G";
    /** The accepted cpu forms. */
    public static final String CPU_FORMS = "whole or fractional cores (e.g. 2, 0.5, 1e1) or millicores with the "
            + "suffix m (e.g. 500m), also u or n (1000000u is 1 core), in steps of 1m (a thousandth of a core)";

    private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);
    private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    private static final String[] DECIMAL = {"k", "M", "G", "T", "P", "E"};
    private static final String DECIMAL_SUFFIXES = "numkMGTPE";
    private static final int[] DECIMAL_EXPONENTS = {-9, -6, -3, 3, 6, 9, 12, 15, 18};
    /** An exponent beyond this many digits is counted as this large: far beyond a long either way. */
    private static final long EXPONENT_CAP = 1_000_000_000_000L;
    /**
     * More significant digits than this never give a whole count that fits a long: a whole count
     * needs at most 19 digits, plus at most 42 for the factors of 5 that a binary suffix (at most
     * 2^60) can cancel.
     */
    private static final int MAX_SIGNIFICANT_DIGITS = 80;

    private Quantities() {}

    /**
     * The number of bytes a memory or disk quantity stands for.
     *
     * @param field the field named in the error, e.g. {@code resources.memory}
     * @throws InvalidInputException naming the field, the value and the fix
     */
    public static long parseBytes(String field, String quantity) {
        return parse(field, quantity, false);
    }

    /**
     * The thousandths of a core a cpu quantity stands for: {@code "2"} is 2000, {@code "0.5"} and
     * {@code "500m"} are 500. Finer than a thousandth of a core is refused, as Kubernetes refuses it
     * for cpu.
     *
     * @param field the field named in the error, e.g. {@code resources.cpu}
     * @throws InvalidInputException naming the field, the value and the fix
     */
    public static long parseCpuMillis(String field, String quantity) {
        return parse(field, quantity, true);
    }

    /**
     * A byte count exactly, in the unit that writes it shortest: {@code 8589934592} is {@code 8Gi},
     * {@code 500000000} is {@code 500M}, {@code 1000} is {@code 1k}; below 1000, and where no unit
     * divides it, the plain number.
     * Every place cronoq shows a byte count (reasons, the gateway, the CLI) writes it this way.
     */
    public static String formatBytes(long bytes) {
        if (bytes < 1000) {
            return Long.toString(bytes);
        }
        String best = null;
        for (int i = BINARY.length - 1; i >= 0 && best == null; i--) {
            long unit = 1L << (10 * (i + 1));
            if (bytes % unit == 0) {
                best = bytes / unit + BINARY[i];
            }
        }
        long unit = 1;
        String decimal = null;
        for (String suffix : DECIMAL) {
            if (unit > Long.MAX_VALUE / 1000) {
                break;
            }
            unit *= 1000;
            if (bytes % unit == 0) {
                decimal = bytes / unit + suffix;
            }
        }
        if (decimal != null && (best == null || decimal.length() < best.length())) {
            best = decimal;
        }
        return best == null ? Long.toString(bytes) : best;
    }

    /** Thousandths of a core as a cpu quantity: 2000 is {@code 2}, 500 is {@code 500m}. */
    public static String formatCpu(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : millis + "m";
    }

    private static long parse(String field, String quantity, boolean cpu) {
        String forms = cpu ? CPU_FORMS : BYTES_FORMS;
        String kind = cpu ? "cpu is " : "it is ";
        if (quantity == null || quantity.isBlank()) {
            throw new InvalidInputException(field, field + " is empty; " + kind + forms);
        }
        String s = quantity.strip();
        int n = s.length();
        int i = 0;
        boolean negative = false;
        if (s.charAt(0) == '+' || s.charAt(0) == '-') {
            negative = s.charAt(0) == '-';
            i++;
        }
        int intStart = i;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        int intEnd = i;
        int fracStart = i;
        int fracEnd = i;
        if (i < n && s.charAt(i) == '.') {
            i++;
            fracStart = i;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
            }
            fracEnd = i;
        }
        if (intEnd == intStart && fracEnd == fracStart) {
            throw notAQuantity(field, quantity, kind, forms);
        }
        String suffix = s.substring(i);

        // The suffix as a power of ten and a power of two.
        long exp10 = 0;
        int exp2 = 0;
        int binary = binaryIndex(suffix);
        if (binary >= 0) {
            exp2 = 10 * (binary + 1);
        } else if (suffix.length() == 1 && DECIMAL_SUFFIXES.indexOf(suffix.charAt(0)) >= 0) {
            exp10 = DECIMAL_EXPONENTS[DECIMAL_SUFFIXES.indexOf(suffix.charAt(0))];
        } else if (!suffix.isEmpty()) {
            Long exponent = exponent(suffix);
            if (exponent == null) {
                throw unknownUnit(field, quantity, suffix, cpu, kind, forms);
            }
            exp10 = exponent;
        }
        if (suffix.equals("m") && !cpu) {
            throw new InvalidInputException(field, field + " '" + quantity + "' has the unit 'm', which cronoq does "
                    + "not read on bytes" + hint("m") + "; it is " + forms);
        }
        if (cpu && (binary >= 0 || (suffix.length() == 1 && "kMGTPE".indexOf(suffix.charAt(0)) >= 0))) {
            throw new InvalidInputException(field, field + " '" + quantity + "' has the unit '" + suffix
                    + "', which is not a cpu unit (write cores, e.g. 2, or millicores, e.g. 500m); cpu is " + forms);
        }

        // The significant digits M, so that the value is M * 10^exp10 * 2^exp2.
        int first = intStart;
        while (first < intEnd && s.charAt(first) == '0') {
            first++;
        }
        String digits = s.substring(first, intEnd) + s.substring(fracStart, fracEnd);
        int lead = 0;
        while (lead < digits.length() && digits.charAt(lead) == '0') {
            lead++;
        }
        int end = digits.length();
        while (end > lead && digits.charAt(end - 1) == '0') {
            end--;
        }
        if (lead == end) {
            return 0; // zero, whatever its sign, suffix or exponent
        }
        if (negative) {
            throw new InvalidInputException(field, field + " '" + quantity + "' is negative; a request is 0 or more, "
                    + "so drop the '-'; " + kind + forms);
        }
        int significant = end - lead;
        exp10 += (cpu ? 3 : 0) - (fracEnd - fracStart) + (digits.length() - end);

        // At least 10^(significant - 1 + exp10): from 10^19 on, beyond a long.
        if (significant - 1 + exp10 >= 19) {
            throw beyond(field, quantity, cpu);
        }
        // Below 10^(significant + exp10) * 2^60 <= 10^(significant + exp10 + 19): under 1, so a fraction.
        if (significant + exp10 + 19 < 0 || significant > MAX_SIGNIFICANT_DIGITS) {
            throw fraction(field, quantity, cpu, kind, forms, null, null);
        }
        BigInteger value = new BigInteger(digits.substring(lead, end)).shiftLeft(exp2);
        BigInteger remainder = BigInteger.ZERO;
        if (exp10 >= 0) {
            value = value.multiply(BigInteger.TEN.pow((int) exp10));
        } else {
            BigInteger[] qr = value.divideAndRemainder(BigInteger.TEN.pow((int) -exp10));
            value = qr[0];
            remainder = qr[1];
        }
        if (value.compareTo(MAX_LONG) > 0 || (value.equals(MAX_LONG) && remainder.signum() > 0)) {
            throw beyond(field, quantity, cpu);
        }
        if (remainder.signum() > 0) {
            throw fraction(field, quantity, cpu, kind, forms, value.longValueExact(), value.longValueExact() + 1);
        }
        return value.longValueExact();
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static int binaryIndex(String suffix) {
        for (int i = 0; i < BINARY.length; i++) {
            if (BINARY[i].equals(suffix)) {
                return i;
            }
        }
        return -1;
    }

    /** The exponent {@code e<signed integer>} or {@code E<signed integer>} spells, or null if it is not one. */
    private static Long exponent(String suffix) {
        if (suffix.length() < 2 || (suffix.charAt(0) != 'e' && suffix.charAt(0) != 'E')) {
            return null;
        }
        int i = 1;
        boolean negative = false;
        if (suffix.charAt(i) == '+' || suffix.charAt(i) == '-') {
            negative = suffix.charAt(i) == '-';
            i++;
        }
        if (i == suffix.length()) {
            return null;
        }
        long value = 0;
        for (; i < suffix.length(); i++) {
            char c = suffix.charAt(i);
            if (!isDigit(c)) {
                return null;
            }
            value = Math.min(EXPONENT_CAP, value * 10 + (c - '0'));
        }
        return negative ? -value : value;
    }

    private static InvalidInputException notAQuantity(String field, String quantity, String kind, String forms) {
        return new InvalidInputException(field, field + " '" + quantity + "' is not a quantity; " + kind + forms);
    }

    private static InvalidInputException unknownUnit(String field, String quantity, String suffix, boolean cpu,
                                                     String kind, String forms) {
        if (!suffix.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
            return notAQuantity(field, quantity, kind, forms);
        }
        if (cpu) {
            return new InvalidInputException(field, field + " '" + quantity + "' has the unit '" + suffix
                    + "', which is not a cpu unit (write cores, e.g. 2, or millicores, e.g. 500m); cpu is " + forms);
        }
        return new InvalidInputException(field, field + " '" + quantity + "' has the unit '" + suffix + "', which "
                + "cronoq does not read" + hint(suffix) + "; it is " + forms);
    }

    private static InvalidInputException beyond(String field, String quantity, boolean cpu) {
        String what = cpu ? "more cpu than the most, " + Long.MAX_VALUE + "m"
                : "more bytes than the most, " + Long.MAX_VALUE + " (just under 8Ei)";
        return new InvalidInputException(field, field + " '" + quantity + "' is beyond what cronoq can count: "
                + what + "; request at most that");
    }

    private static InvalidInputException fraction(String field, String quantity, boolean cpu, String kind,
                                                  String forms, Long below, Long above) {
        String near = below == null ? "" : ", e.g. " + (cpu ? formatCpuMillis(below) + " or " + formatCpuMillis(above)
                : below + " or " + above);
        if (cpu) {
            return new InvalidInputException(field, field + " '" + quantity + "' is finer than 1m (a thousandth of a "
                    + "core); round it to whole millicores" + near + "; cpu is " + forms);
        }
        return new InvalidInputException(field, field + " '" + quantity + "' is not a whole number of bytes; round "
                + "it to whole bytes" + near + "; " + kind + forms);
    }

    private static String formatCpuMillis(long millis) {
        return millis + "m";
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
            if (!"KMGTPE".contains(unit) || unit.length() != 1) {
                return "";
            }
            String decimal = unit.equals("K") ? "k" : unit;
            return " (drop the B: write " + decimal + " for powers of 1000 or " + unit + "i for powers of 1024)";
        }
        return "";
    }
}
