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
 * One package a task requires, as pip writes it: {@code torch}, {@code torch==2.1.0}, {@code
 * numpy>=1.26}, {@code scipy<=1.11}, {@code jax>0.4}, {@code jax<0.5}, {@code cuda!=12.0}, {@code
 * pandas~=2.1} (compatible release: {@code >=2.1, ==2.*}) and comma-joined ranges such as {@code
 * torch>=2.0,<3}; {@code ==} and {@code !=} also take a trailing wildcard ({@code ==2.1.*}).
 * Versions order as {@link PackageVersion} says. Names compare case-insensitively with {@code -},
 * {@code _} and {@code .} alike ({@code Scikit_Learn} is {@code scikit-learn}). A text that is not a
 * requirement is refused with the reason — never read as one that silently never matches.
 * Immutable and thread-safe.
 */
public final class PackageRequirement {

    /** What a requirement may look like, as error messages state it. */
    public static final String FORMS = "a package name optionally followed by comma-joined constraints, each "
            + "one of ==, !=, >=, <=, >, <, ~= and a version: e.g. torch, torch==2.1.0, numpy>=1.26, "
            + "torch>=2.0,<3, pandas~=2.1";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?");
    private static final Pattern SEPARATORS = Pattern.compile("[-_.]+");
    private static final Pattern CONSTRAINT = Pattern.compile("(~=|==|!=|<=|>=|<|>)\\s*(.*)");
    private static final Pattern OPERATOR_LIKE = Pattern.compile("[=<>!~]+");

    /** A comparison of a constraint. */
    public enum Operator {
        EQUAL("=="), NOT_EQUAL("!="), AT_LEAST(">="), AT_MOST("<="), GREATER(">"), LESS("<"), COMPATIBLE("~=");

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
     * @param wildcard whether the version ended in {@code .*} (only with {@code ==} and {@code !=})
     */
    public record Constraint(Operator operator, PackageVersion version, boolean wildcard) {

        /** Checks that nothing is missing. */
        public Constraint {
            Objects.requireNonNull(operator, "operator");
            Objects.requireNonNull(version, "version");
        }

        /** Whether an installed version satisfies this comparison. */
        public boolean matches(PackageVersion installed) {
            PackageVersion candidate = version.hasLocal() ? installed : installed.withoutLocal();
            return switch (operator) {
                case EQUAL -> wildcard ? candidate.hasReleasePrefix(version) : candidate.compareTo(version) == 0;
                case NOT_EQUAL -> wildcard ? !candidate.hasReleasePrefix(version) : candidate.compareTo(version) != 0;
                case AT_LEAST -> candidate.compareTo(version) >= 0;
                case AT_MOST -> candidate.compareTo(version) <= 0;
                // PEP 440: <3 means below the 3 series, so it excludes 3.0rc1; >2 excludes 2.post1.
                case LESS -> candidate.compareTo(version) < 0
                        && !(candidate.isPreRelease() && !version.isPreRelease() && candidate.sameRelease(version));
                case GREATER -> candidate.compareTo(version) > 0
                        && !(candidate.isPostRelease() && !version.isPostRelease() && candidate.sameRelease(version));
                case COMPATIBLE -> candidate.compareTo(version) >= 0
                        && candidate.hasReleasePrefix(version.releasePrefixForCompatible());
            };
        }

        @Override
        public String toString() {
            return operator.symbol() + version + (wildcard ? ".*" : "");
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
        if (text == null || text.isBlank()) {
            throw new InvalidInputException(field, field + " is empty; a package requirement is " + FORMS);
        }
        String trimmed = text.strip();
        Matcher name = NAME.matcher(trimmed);
        if (!name.lookingAt()) {
            throw refuse(field, text, "it does not start with a package name (letters, digits, '.', '_' or '-', "
                    + "starting and ending with a letter or digit)");
        }
        String rest = trimmed.substring(name.end()).strip();
        if (rest.startsWith("[")) {
            throw refuse(field, text, "extras ([...]) are not requirements of a worker; name the packages themselves");
        }
        if (rest.contains(";")) {
            throw refuse(field, text, "environment markers (; ...) are not supported; a worker publishes versions only");
        }
        List<Constraint> constraints = new ArrayList<>();
        if (!rest.isEmpty()) {
            for (String part : rest.split(",", -1)) {
                constraints.add(constraint(field, text, part.strip()));
            }
        }
        return new PackageRequirement(name.group(), constraints);
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
                    + (op.group().equals("===") ? " (arbitrary equality)" : "")
                    : "'" + part + "' does not start with an operator";
            throw refuse(field, text, what + "; use ==, !=, >=, <=, >, < or ~=");
        }
        Operator operator = Operator.of(m.group(1));
        String versionText = m.group(2).strip();
        if (versionText.isEmpty()) {
            throw refuse(field, text, "'" + operator.symbol() + "' is not followed by a version");
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
     * version that is not a version (see {@link PackageVersion#FORMS}) satisfies no constraint.
     */
    public boolean matches(String installedVersion) {
        if (constraints.isEmpty()) {
            return true;
        }
        Optional<PackageVersion> installed = PackageVersion.tryParse(installedVersion);
        return installed.isPresent() && matches(installed.get());
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
