package io.cronoq.scheduler.policy.match;

import io.cronoq.schemas.rules.Quantities;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Quantities as people read them in reasons: cpu as {@code 4} or {@code 500m}, bytes in the unit
 * that writes them exactly and shortest ({@code 8Gi}, {@code 500M}), else in binary units with one
 * decimal rounded down ({@code 15.3Gi}), so a worker is never shown with more than it has. A need
 * and a capacity shown side by side never read the same unless they are ({@link #bytesApart}).
 */
public final class Units {

    private static final String[] BINARY = {"Ki", "Mi", "Gi", "Ti", "Pi"};

    private Units() {}

    public static String cpu(long millis) {
        return Quantities.formatCpu(millis);
    }

    /** Exactly ({@link Quantities#formatBytes}) when a unit writes it short, else rounded down to one decimal. */
    public static String bytes(long bytes) {
        String exact = Quantities.formatBytes(bytes);
        boolean inAUnit = !Character.isDigit(exact.charAt(exact.length() - 1));
        if (bytes < 1024 || inAUnit && exact.length() <= 6) { // below 1Ki no unit rounds it
            return exact;
        }
        int i = BINARY.length - 1;
        while (i > 0 && bytes < 1L << (10 * (i + 1))) {
            i--;
        }
        long tenths = (long) Math.floor(bytes * 10.0 / (1L << (10 * (i + 1))));
        return tenths / 10 + (tenths % 10 == 0 ? "" : "." + tenths % 10) + BINARY[i];
    }

    /**
     * Two byte counts that a reason sets side by side ("needs X, largest Y"), written so that two
     * different numbers never read the same: each as {@link #bytes} where those words differ; else
     * both in the binary unit of the larger with as many decimals (two or three, rounded down) as
     * tell them apart; else both exactly, in bytes. {@code 102437} beside {@code 102436} reads
     * {@code 102437 bytes} and {@code 102436 bytes}, never {@code 100Ki} twice.
     */
    public static String[] bytesApart(long first, long second) {
        String a = bytes(first);
        String b = bytes(second);
        if (first == second || !a.equals(b)) {
            return new String[] {a, b};
        }
        long larger = Math.max(first, second);
        int i = BINARY.length - 1;
        while (i > 0 && larger < 1L << (10 * (i + 1))) {
            i--;
        }
        long unit = 1L << (10 * (i + 1));
        for (int decimals = 2; decimals <= 3; decimals++) {
            a = decimals(first, unit, decimals) + BINARY[i];
            b = decimals(second, unit, decimals) + BINARY[i];
            if (!a.equals(b)) {
                return new String[] {a, b};
            }
        }
        return new String[] {first + " bytes", second + " bytes"};
    }

    /** {@code bytes / unit} with {@code decimals} decimals, rounded down, trailing zeros kept. */
    private static String decimals(long bytes, long unit, int decimals) {
        BigDecimal value = BigDecimal.valueOf(bytes)
                .divide(BigDecimal.valueOf(unit), decimals, RoundingMode.FLOOR);
        return value.toPlainString();
    }

    /** 1st, 2nd, 3rd, 4th, 11th, 21st, 112th. */
    public static String ordinal(long n) {
        long lastTwo = n % 100;
        String suffix = lastTwo >= 11 && lastTwo <= 13 ? "th" : switch ((int) (n % 10)) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
        return n + suffix;
    }

    /** {@code "1 worker"}, {@code "3 workers"}. */
    public static String count(long n, String singular, String plural) {
        return n + " " + (n == 1 ? singular : plural);
    }
}
