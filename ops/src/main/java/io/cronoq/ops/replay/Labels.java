package io.cronoq.ops.replay;

import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;

/** Label sets as the command line writes them: {@code a=b,c=d}, empty for none, always sorted by name. */
final class Labels {

    /** How an empty label set is shown to people. */
    static final String NONE = "(no labels)";

    /** Label sets in the order of their {@link #format} text, so the unlabeled group comes first. */
    static final Comparator<Map<String, String>> ORDER = Comparator.comparing(Labels::format);

    private Labels() {}

    /** Parses {@code a=b,c=d} (empty means no labels); a malformed pair or label is an IllegalArgumentException. */
    static Map<String, String> parse(String text) {
        Map<String, String> labels = new TreeMap<>();
        if (text.isBlank()) {
            return labels;
        }
        for (String pair : text.split(",", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("label '" + pair + "' is not name=value");
            }
            String name = pair.substring(0, eq).trim();
            if (labels.put(name, pair.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException("label '" + name + "' is given twice");
            }
        }
        Optional<Violation> broken = Rules.labels(labels);
        if (broken.isPresent()) {
            throw new IllegalArgumentException(broken.get().message());
        }
        return labels;
    }

    /** {@code a=b,c=d} sorted by name; empty for none. */
    static String format(Map<String, String> labels) {
        StringJoiner out = new StringJoiner(",");
        new TreeMap<>(labels).forEach((k, v) -> out.add(k + "=" + v));
        return out.toString();
    }

    /** Like {@link #format} but {@value #NONE} for an empty set, for tables. */
    static String display(Map<String, String> labels) {
        return labels.isEmpty() ? NONE : format(labels);
    }

    /** Whether a group with {@code group} labels can run a task requiring {@code required}. */
    static boolean serves(Map<String, String> group, Map<String, String> required) {
        return group.entrySet().containsAll(required.entrySet());
    }
}
