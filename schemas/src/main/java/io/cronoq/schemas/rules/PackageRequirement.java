package io.cronoq.schemas.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One package a task requires, as pip reads it (PEP 508 and PEP 440 as Python's {@code packaging}
 * implements them): {@code torch}, {@code torch==2.1.0}, {@code numpy>=1.26}, {@code scipy<=1.11},
 * {@code jax>0.4}, {@code jax<0.5}, {@code cuda!=12.0}, {@code pandas~=2.1} (compatible release:
 * {@code >=2.1, ==2.*}), {@code foo===1.0-custom} (arbitrary equality: the version text, compared
 * case-insensitively), comma-joined ranges such as {@code torch>=2.0,<3}, the parenthesised form
 * {@code torch (>=2.0,<3)}, and a trailing wildcard after {@code ==} and {@code !=} ({@code ==2.1.*}).
 * Spaces and tabs may stand around the name, the parentheses, the commas and the operators; any
 * other whitespace, a line break among them, is refused. Versions order as {@link PackageVersion}
 * says; {@code >V} excludes V's post-releases and local builds, {@code <V} excludes V's
 * pre-releases, unless V is itself one. An installed pre-release satisfies a range that holds it
 * ({@code 2.1rc1} satisfies {@code >=2.0}), as {@code packaging} reads an installed version. Names
 * compare case-insensitively with {@code -}, {@code _} and {@code .} alike ({@code Scikit_Learn} is
 * {@code scikit-learn}). A text that is not a requirement is refused with the reason — never read
 * as one that silently never matches. Immutable and thread-safe.
 */
public final class PackageRequirement {

    /** What a requirement may look like, as error messages state it. */
    public static final String FORMS = "a package name optionally followed by comma-joined constraints, each "
            + "one of ==, !=, >=, <=, >, <, ~=, === and a version, optionally in parentheses: e.g. torch, "
            + "torch==2.1.0, numpy>=1.26, torch>=2.0,<3, torch (>=2.0,<3), pandas~=2.1";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?");
    private static final Pattern SEPARATORS = Pattern.compile("[-_.]+");
    private static final Pattern CONSTRAINT = Pattern.compile("(===|~=|==|!=|<=|>=|<|>)[ \\t]*(.*)", Pattern.DOTALL);
    private static final Pattern OPERATOR_LIKE = Pattern.compile("[=<>!~]+");

    /** A comparison of a constraint. */
    public enum Operator {
        EQUAL("=="), NOT_EQUAL("!="), AT_LEAST(">="), AT_MOST("<="), GREATER(">"), LESS("<"), COMPATIBLE("~="),
        /** {@code ===}: the installed version's text equals the constraint's, case aside. */
        ARBITRARY("===");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        /** How it is written: {@code >=}. */
        public String symbol() {
            return symbol;
        }

        static Operator of(String symbol) {
            for (Operator op : values()) {
                if (op.symbol.equals(symbol)) {
                    return op;
                }
            }
            throw new IllegalArgumentException(symbol);
        }
    }

    /**
     * One comparison of a requirement, e.g. {@code >=2.0}.
     *
     * @param version   the version compared with; null only for {@code ===} with a text that is not a version
     * @param wildcard  whether the version ended in {@code .*} (only with {@code ==} and {@code !=})
     * @param arbitrary the text {@code ===} compares with, null for every other operator
     */
    public record Constraint(Operator operator, PackageVersion version, boolean wildcard, String arbitrary) {

        /** Checks that nothing is missing: a version, or for {@code ===} its text. */
        public Constraint {
            Objects.requireNonNull(operator, "operator");
            if (operator == Operator.ARBITRARY) {
                Objects.requireNonNull(arbitrary, "arbitrary");
            } else {
                Objects.requireNonNull(version, "version");
                if (arbitrary != null) {
                    throw new IllegalArgumentException("only === compares a text");
                }
            }
        }

        /** A comparison with a version (every operator but {@code ===}). */
        public Constraint(Operator operator, PackageVersion version, boolean wildcard) {
            this(operator, version, wildcard, null);
        }

        /**
         * Whether an installed version satisfies this comparison; for {@code ===}, whether its text
         * as written equals this one's, case aside.
         */
        public boolean matches(PackageVersion installed) {
            if (operator == Operator.ARBITRARY) {
                return matchesText(installed.toString());
            }
            // A constraint without a local label ignores the installed version's.
            PackageVersion candidate = version.hasLocal() ? installed : installed.withoutLocal();
            return switch (operator) {
                case EQUAL -> wildcard ? candidate.hasReleasePrefix(version) : candidate.compareTo(version) == 0;
                case NOT_EQUAL -> wildcard ? !candidate.hasReleasePrefix(version) : candidate.compareTo(version) != 0;
                case AT_LEAST -> candidate.compareTo(version) >= 0;
                case AT_MOST -> candidate.compareTo(version) <= 0;
                // PEP 440: <3 means below the 3 series, so it excludes 3.0rc1 and 3.0.dev1, unless the
                // bound is itself a pre-release; <1.0.post1 excludes only 1.0.post1's own dev releases.
                case LESS -> candidate.compareTo(version.isPreRelease() ? version : version.devZero()) < 0;
                // >2 excludes 2.post1 (and 2+local), unless the bound is a post- or dev release; >2a1
                // excludes 2a1.post1 but not 2.post1, a post-release of another version.
                case GREATER -> candidate.compareTo(version) > 0
                        && (version.isPostRelease() || version.isDevRelease()
                        || !candidate.sameReleaseAndPreRelease(version));
                case COMPATIBLE -> candidate.compareTo(version) >= 0
                        && candidate.hasReleasePrefix(version.releasePrefixForCompatible());
                case ARBITRARY -> throw new IllegalStateException("handled above");
            };
        }

        /**
         * Whether an installed version, as its text, satisfies this comparison: {@code ===} compares
         * the text, every other operator the version it spells (none, if it spells none).
         */
        public boolean matches(String installed) {
            if (installed == null) {
                return false;
            }
            if (operator == Operator.ARBITRARY) {
                return matchesText(PackageVersion.stripPython(installed));
            }
            Optional<PackageVersion> v = PackageVersion.tryParse(installed);
            return v.isPresent() && matches(v.get());
        }

        private boolean matchesText(String installed) {
            return installed.toLowerCase(Locale.ROOT).equals(arbitrary.toLowerCase(Locale.ROOT));
        }

        @Override
        public String toString() {
            return operator.symbol() + (arbitrary != null ? arbitrary : version + (wildcard ? ".*" : ""));
        }
    }

    private final String name;
    private final String normalizedName;
    private final List<Constraint> constraints;

    private PackageRequirement(String name, List<Constraint> constraints) {
        this.name = name;
        this.normalizedName = normalizeName(name);
        this.constraints = List.copyOf(constraints);
    }

    /**
     * The requirement this text spells.
     *
     * @param field the field named in the error, e.g. {@code resources.packages[0]}
     * @throws InvalidInputException naming the field, the text and what was wrong with it
     */
    public static PackageRequirement parse(String field, String text) {
        if (text == null || text.isEmpty() || PackageVersion.stripPython(text).isEmpty()) {
            throw new InvalidInputException(field, field + " is empty; a package requirement is " + FORMS);
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                throw refuse(field, text, "it holds a line break; a requirement is one line, so remove it");
            }
            if (c != ' ' && c != '\t' && (PackageVersion.isPythonWhitespace(c) || Character.isWhitespace(c))) {
                throw refuse(field, text, String.format("it holds the whitespace U+%04X; only spaces and tabs may "
                        + "separate its parts", (int) c));
            }
        }
        String trimmed = stripSpaces(text);
        Matcher name = NAME.matcher(trimmed);
        if (!name.lookingAt()) {
            throw refuse(field, text, "it does not start with a package name (letters, digits, '.', '_' or '-', "
                    + "starting and ending with a letter or digit)");
        }
        String rest = stripSpaces(trimmed.substring(name.end()));
        if (rest.startsWith("[")) {
            throw refuse(field, text, "extras ([...]) are not requirements of a worker; name the packages themselves");
        }
        if (rest.contains(";")) {
            throw refuse(field, text, "environment markers (; ...) are not supported; a worker publishes versions only");
        }
        if (rest.startsWith("@")) {
            throw refuse(field, text, "a direct reference (@ url) is not a requirement of a worker; give a version "
                    + "constraint instead");
        }
        if (rest.startsWith("(")) {
            if (!rest.endsWith(")")) {
                throw refuse(field, text, "the '(' after the name is not closed; end the constraints with ')'");
            }
            rest = stripSpaces(rest.substring(1, rest.length() - 1));
            if (rest.isEmpty()) {
                throw refuse(field, text, "the parentheses hold no constraint; write the name alone for any version");
            }
        }
        if (rest.indexOf('(') >= 0 || rest.indexOf(')') >= 0) {
            throw refuse(field, text, "parentheses go around all the constraints, once, right after the name, "
                    + "e.g. torch (>=2.0,<3)");
        }
        List<Constraint> constraints = new ArrayList<>();
        if (!rest.isEmpty()) {
            for (String part : rest.split(",", -1)) {
                constraints.add(constraint(field, text, stripSpaces(part)));
            }
        }
        return new PackageRequirement(name.group(), constraints);
    }

    /** The text without the spaces and tabs at either end (the only whitespace PEP 508 allows). */
    private static String stripSpaces(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && (text.charAt(start) == ' ' || text.charAt(start) == '\t')) {
            start++;
        }
        while (end > start && (text.charAt(end - 1) == ' ' || text.charAt(end - 1) == '\t')) {
            end--;
        }
        return text.substring(start, end);
    }

    /** The rule form of {@link #parse}: the violation, or empty when the text is a requirement. */
    public static Optional<Violation> check(String field, String text) {
        try {
            parse(field, text);
            return Optional.empty();
        } catch (InvalidInputException e) {
            return Optional.of(e.violation());
        }
    }

    private static Constraint constraint(String field, String text, String part) {
        if (part.isEmpty()) {
            throw refuse(field, text, "it has an empty constraint (two commas in a row, or a comma at an end)");
        }
        Matcher m = CONSTRAINT.matcher(part);
        if (!m.matches() || OPERATOR_LIKE.matcher(m.group(2)).lookingAt()) {
            Matcher op = OPERATOR_LIKE.matcher(part);
            String what = op.lookingAt() ? "the operator '" + op.group() + "' is not one cronoq reads"
                    : "'" + part + "' does not start with an operator";
            throw refuse(field, text, what + "; use ==, !=, >=, <=, >, <, ~= or ===");
        }
        Operator operator = Operator.of(m.group(1));
        String versionText = stripSpaces(m.group(2));
        if (versionText.isEmpty()) {
            throw refuse(field, text, "'" + operator.symbol() + "' is not followed by a version");
        }
        if (operator == Operator.ARBITRARY) {
            if (versionText.indexOf(' ') >= 0 || versionText.indexOf('\t') >= 0) {
                throw refuse(field, text, "'" + versionText + "' after === is more than one word; === compares "
                        + "one version text, e.g. ===1.0-custom");
            }
            return new Constraint(operator, PackageVersion.tryParse(versionText).orElse(null), false, versionText);
        }
        boolean wildcard = versionText.endsWith(".*");
        if (wildcard) {
            if (operator != Operator.EQUAL && operator != Operator.NOT_EQUAL) {
                throw refuse(field, text, "a wildcard (.*) is allowed only after == or !=");
            }
            versionText = versionText.substring(0, versionText.length() - 2);
        }
        String shown = versionText;
        PackageVersion version = PackageVersion.tryParse(versionText).orElseThrow(() -> refuse(field, text,
                        "'" + shown + "' is not a version; a version is " + PackageVersion.FORMS));
        if (wildcard && (version.isPreRelease() || version.isPostRelease() || version.hasLocal())) {
            throw refuse(field, text, "a wildcard (.*) follows release numbers only, e.g. ==2.1.*");
        }
        if (version.hasLocal() && operator != Operator.EQUAL && operator != Operator.NOT_EQUAL) {
            throw refuse(field, text, "a local label (+...) is allowed only after == or !=");
        }
        if (operator == Operator.COMPATIBLE && version.releaseLength() < 2) {
            throw refuse(field, text, "~= needs at least two release numbers (~=2.1 means >=2.1 and ==2.*); "
                    + "for any 2.x write >=2,<3");
        }
        return new Constraint(operator, version, wildcard);
    }

    private static InvalidInputException refuse(String field, String text, String reason) {
        return new InvalidInputException(field, field + " '" + text + "' is not a package requirement: " + reason
                + ". A requirement is " + FORMS);
    }

    /** A package name as compared: lower case, each run of {@code -}, {@code _} and {@code .} as one {@code -}. */
    public static String normalizeName(String name) {
        return SEPARATORS.matcher(name.toLowerCase(Locale.ROOT)).replaceAll("-");
    }

    /** The package name as written. */
    public String name() {
        return name;
    }

    /** The name as compared, see {@link #normalizeName}. */
    public String normalizedName() {
        return normalizedName;
    }

    /** The constraints every one of which a version must satisfy; empty means any version. */
    public List<Constraint> constraints() {
        return constraints;
    }

    /** Whether an installed package of this name is this requirement's package. */
    public boolean isFor(String packageName) {
        return packageName != null && normalizeName(packageName).equals(normalizedName);
    }

    /**
     * Whether an installed version satisfies every constraint. Any version satisfies a bare name; a
     * version that is not a version (see {@link PackageVersion#FORMS}) satisfies only {@code ===}
     * constraints with its text.
     */
    public boolean matches(String installedVersion) {
        Optional<PackageVersion> version = null; // read once, for the first constraint that compares versions
        for (Constraint c : constraints) {
            boolean holds;
            if (installedVersion == null || c.operator == Operator.ARBITRARY) {
                holds = c.matches(installedVersion);
            } else {
                if (version == null) {
                    version = PackageVersion.tryParse(installedVersion);
                }
                holds = version.isPresent() && c.matches(version.get());
            }
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    /** Whether an installed version satisfies every constraint. */
    public boolean matches(PackageVersion installed) {
        for (Constraint c : constraints) {
            if (!c.matches(installed)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a worker's installed packages (name to version, as it published them) hold this
     * package in a matching version.
     */
    public boolean satisfiedBy(Map<String, String> installed) {
        for (Map.Entry<String, String> p : installed.entrySet()) {
            if (isFor(p.getKey()) && matches(p.getValue())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PackageRequirement r && r.normalizedName.equals(normalizedName)
                && r.constraints.equals(constraints);
    }

    @Override
    public int hashCode() {
        return Objects.hash(normalizedName, constraints);
    }

    /** The requirement in its canonical spelling: {@code torch>=2.0,<3}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(name);
        for (int i = 0; i < constraints.size(); i++) {
            s.append(i == 0 ? "" : ",").append(constraints.get(i));
        }
        return s.toString();
    }
}
