package io.cronoq.schemas.rules;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A package version, read and ordered as Python's packaging (PEP 440) does: release numbers compare
 * part by part numerically ({@code 2.10 > 2.9}, {@code 2.0 == 2.0.0}); a dev release comes before
 * the pre-releases, which come before the release ({@code 2.0.dev1 < 2.0a1 < 2.0b2 < 2.0rc1 < 2.0});
 * post-releases come after it ({@code 2.0 < 2.0.post1}); an optional epoch ({@code 1!}) outranks
 * everything, and a local label ({@code +cu118}) ranks a build after its public version. Every
 * spelling PEP 440 normalises is read ({@code 1.0-1} is {@code 1.0.post1}, {@code v1.0}, {@code
 * 1.0RC1}, {@code 1.0-dev}, {@code 1.0.a.1}); letters compare case-insensitively (ASCII only), and
 * the whitespace around a version is what Python's {@code str.strip()} removes. Immutable.
 */
public final class PackageVersion implements Comparable<PackageVersion> {

    /** What a version may look like, as error messages state it. */
    public static final String FORMS = "numbers separated by dots (e.g. 2.1.0), optionally preceded by an epoch "
            + "(1!) and followed by a pre-release (a1, b2, rc1), a post-release (.post1) or a dev release (.dev1), "
            + "and a local label (+cu118), as PEP 440 spells them";

    /** PEP 440's pattern; case-insensitive for ASCII letters only, so {@code İ} or {@code K} (Kelvin) is no letter. */
    private static final Pattern VERSION = Pattern.compile(
            "v?(?:([0-9]+)!)?([0-9]+(?:\\.[0-9]+)*)"
                    + "(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?"
                    + "(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?"
                    + "(?:[-_.]?(dev)[-_.]?([0-9]+)?)?"
                    + "(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?", Pattern.CASE_INSENSITIVE);

    private final String text;
    private final BigInteger epoch;
    private final BigInteger[] release;
    /** 0 = a, 1 = b, 2 = rc; -1 = not a pre-release. */
    private final int preTag;
    private final BigInteger preNumber;
    private final BigInteger post;
    private final BigInteger dev;
    private final String local;

    private PackageVersion(String text, BigInteger epoch, BigInteger[] release, int preTag, BigInteger preNumber,
                           BigInteger post, BigInteger dev, String local) {
        this.text = text;
        this.epoch = epoch;
        this.release = release;
        this.preTag = preTag;
        this.preNumber = preNumber;
        this.post = post;
        this.dev = dev;
        this.local = local;
    }

    /** The version this text spells, or empty if it is not one (see {@link #FORMS}). */
    public static Optional<PackageVersion> tryParse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String trimmed = stripPython(text);
        Matcher m = VERSION.matcher(trimmed);
        if (!m.matches()) {
            return Optional.empty();
        }
        BigInteger epoch = m.group(1) == null ? BigInteger.ZERO : new BigInteger(m.group(1));
        BigInteger[] release = Arrays.stream(m.group(2).split("\\.")).map(BigInteger::new).toArray(BigInteger[]::new);
        int preTag = -1;
        BigInteger preNumber = null;
        if (m.group(3) != null) {
            preTag = switch (m.group(3).toLowerCase(Locale.ROOT)) {
                case "a", "alpha" -> 0;
                case "b", "beta" -> 1;
                default -> 2;
            };
            preNumber = number(m.group(4));
        }
        BigInteger post = null;
        if (m.group(5) != null) {
            post = new BigInteger(m.group(5));
        } else if (m.group(6) != null) {
            post = number(m.group(7));
        }
        BigInteger dev = m.group(8) == null ? null : number(m.group(9));
        String local = m.group(10) == null ? null : m.group(10).toLowerCase(Locale.ROOT);
        return Optional.of(new PackageVersion(trimmed, epoch, release, preTag, preNumber, post, dev, local));
    }

    /**
     * The version this text spells.
     *
     * @throws InvalidInputException on the given field if the text is not a version
     */
    public static PackageVersion parse(String field, String text) {
        return tryParse(text).orElseThrow(() -> new InvalidInputException(field,
                field + " '" + text + "' is not a version; a version is " + FORMS));
    }

    /**
     * The text without the whitespace Python's {@code str.strip()} removes at either end: the
     * characters {@code str.isspace()} holds true for, which are not Java's whitespace (they include
     * U+001C..U+001F, U+0085, U+00A0, U+2028, U+2029, U+202F and exclude U+200B).
     */
    static String stripPython(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isPythonWhitespace(text.charAt(start))) {
            start++;
        }
        while (end > start && isPythonWhitespace(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(start, end);
    }

    /** Whether Python's {@code str.isspace()} holds for the character (Python 3, Unicode 6.3 and later). */
    static boolean isPythonWhitespace(char c) {
        return (c >= '\t' && c <= '\r') || (c >= '\u001C' && c <= ' ') || c == '\u0085' || c == '\u00A0'
                || c == '\u1680' || (c >= '\u2000' && c <= '\u200A') || c == '\u2028' || c == '\u2029'
                || c == '\u202F' || c == '\u205F' || c == '\u3000';
    }

    private static BigInteger number(String digits) {
        return digits == null ? BigInteger.ZERO : new BigInteger(digits);
    }

    /** Whether this is a pre-release or a dev release ({@code 2.0rc1}, {@code 2.0.dev3}). */
    public boolean isPreRelease() {
        return preTag >= 0 || dev != null;
    }

    /** Whether this is a post-release ({@code 2.0.post1}). */
    public boolean isPostRelease() {
        return post != null;
    }

    /** Whether the version carries a local label ({@code 2.1.0+cu118}). */
    public boolean hasLocal() {
        return local != null;
    }

    /** Number of release parts as written: 3 for {@code 2.1.0}. */
    public int releaseLength() {
        return release.length;
    }

    /** The same version without its local label. */
    public PackageVersion withoutLocal() {
        if (local == null) {
            return this;
        }
        int plus = text.indexOf('+');
        return new PackageVersion(text.substring(0, plus), epoch, release, preTag, preNumber, post, dev, null);
    }

    /**
     * Whether this version's epoch is {@code prefix}'s and its release starts with {@code prefix}'s
     * release (missing parts counted as 0): what {@code ==prefix.*} means.
     */
    boolean hasReleasePrefix(PackageVersion prefix) {
        if (!epoch.equals(prefix.epoch)) {
            return false;
        }
        for (int i = 0; i < prefix.release.length; i++) {
            if (part(release, i).compareTo(prefix.release[i]) != 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether the two share epoch, release and pre-release, e.g. {@code 2.0rc1} and {@code 2.0rc1.post2}. */
    boolean sameReleaseAndPreRelease(PackageVersion other) {
        return sameRelease(other) && preTag == other.preTag
                && (preTag < 0 || preNumber.equals(other.preNumber));
    }

    /** Whether this carries a dev release ({@code 2.0.dev1}, {@code 2.0.post1.dev2}). */
    boolean isDevRelease() {
        return dev != null;
    }

    /**
     * The earliest version of this one's family: the same version as {@code .dev0}, without local
     * label ({@code 1.0} gives {@code 1.0.dev0}, {@code 1.0.post1} gives {@code 1.0.post1.dev0}).
     */
    PackageVersion devZero() {
        String shown = withoutLocal().text + ".dev0";
        return new PackageVersion(shown, epoch, release, preTag, preNumber, post, BigInteger.ZERO, null);
    }

    /** Whether the two share epoch and release, e.g. {@code 2.0rc1} and {@code 2.0.post2}. */
    boolean sameRelease(PackageVersion other) {
        return epoch.equals(other.epoch) && compareRelease(release, other.release) == 0;
    }

    /** The version with its last release part dropped, for {@code ~=}: {@code 1.4.5} gives {@code 1.4}. */
    PackageVersion releasePrefixForCompatible() {
        BigInteger[] prefix = Arrays.copyOf(release, release.length - 1);
        List<String> parts = new ArrayList<>();
        for (BigInteger p : prefix) {
            parts.add(p.toString());
        }
        return new PackageVersion(String.join(".", parts), epoch, prefix, -1, null, null, null, null);
    }

    @Override
    public int compareTo(PackageVersion o) {
        int c = epoch.compareTo(o.epoch);
        if (c != 0) {
            return c;
        }
        c = compareRelease(release, o.release);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(preRank(), o.preRank());
        if (c != 0) {
            return c;
        }
        if (preTag >= 0) {
            c = preNumber.compareTo(o.preNumber);
            if (c != 0) {
                return c;
            }
        }
        c = compareMissingFirst(post, o.post);
        if (c != 0) {
            return c;
        }
        c = compareMissingLast(dev, o.dev);
        if (c != 0) {
            return c;
        }
        return compareLocal(local, o.local);
    }

    /** A dev-only release sorts before every pre-release of its release; a plain release after them. */
    private int preRank() {
        if (preTag >= 0) {
            return preTag;
        }
        return dev != null && post == null ? -1 : 3;
    }

    private static int compareRelease(BigInteger[] a, BigInteger[] b) {
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            int c = part(a, i).compareTo(part(b, i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private static BigInteger part(BigInteger[] release, int i) {
        return i < release.length ? release[i] : BigInteger.ZERO;
    }

    private static int compareMissingFirst(BigInteger a, BigInteger b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        return a.compareTo(b);
    }

    private static int compareMissingLast(BigInteger a, BigInteger b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : 1) : -1;
        }
        return a.compareTo(b);
    }

    /** PEP 440: no label first; labels compare segment by segment, numbers above words. */
    private static int compareLocal(String a, String b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        String[] x = a.split("[-_.]");
        String[] y = b.split("[-_.]");
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            boolean xNum = x[i].chars().allMatch(Character::isDigit);
            boolean yNum = y[i].chars().allMatch(Character::isDigit);
            int c;
            if (xNum && yNum) {
                c = new BigInteger(x[i]).compareTo(new BigInteger(y[i]));
            } else if (xNum != yNum) {
                c = xNum ? 1 : -1;
            } else {
                c = x[i].compareTo(y[i]);
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PackageVersion v && compareTo(v) == 0;
    }

    @Override
    public int hashCode() {
        // Trailing zero parts do not change a version (2.0 == 2.0.0), so they must not change the hash.
        int n = release.length;
        while (n > 1 && release[n - 1].signum() == 0) {
            n--;
        }
        return java.util.Objects.hash(epoch, Arrays.hashCode(Arrays.copyOf(release, n)), preRank(), preNumber, post,
                dev, local == null ? null : local.toLowerCase(Locale.ROOT).replaceAll("[-_]", "."));
    }

    /** The version as it was written. */
    @Override
    public String toString() {
        return text;
    }
}
