package io.cronoq.scheduler.policy.match;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A set of labels in canonical form: the identity of a group (the labels its workers carry) and of
 * a requirement class (the labels its tasks require). The key lists {@code name=value} pairs sorted
 * by name and joined with commas ({@code ""} for none); it is unambiguous because validated label
 * names and values contain neither {@code =} nor {@code ,}.
 */
public final class LabelSet extends Keyed {

    public static final LabelSet EMPTY = new LabelSet("", Collections.emptySortedMap());

    private final SortedMap<String, String> labels;
    /** The names in order, and their values: {@link #includes(LabelSet)} walks these, without an iterator. */
    private final String[] names;
    private final String[] values;

    private LabelSet(String key, SortedMap<String, String> labels) {
        super(key);
        this.labels = labels;
        this.names = labels.keySet().toArray(new String[0]);
        this.values = labels.values().toArray(new String[0]);
    }

    /** The canonical key of these labels, without building a {@code LabelSet} (hot path of submit). */
    public static String key(Map<String, String> labels) {
        int n = labels.size();
        if (n == 0) {
            return "";
        }
        if (n == 1) {
            Map.Entry<String, String> only = labels.entrySet().iterator().next();
            return only.getKey() + '=' + only.getValue();
        }
        return join(new TreeMap<>(labels));
    }

    public static LabelSet of(Map<String, String> labels) {
        if (labels.isEmpty()) {
            return EMPTY;
        }
        TreeMap<String, String> sorted = new TreeMap<>(labels);
        return new LabelSet(join(sorted), Collections.unmodifiableSortedMap(sorted));
    }

    /** The inverse of {@link #key()}: a class key read back from the waiting queue. */
    public static LabelSet parse(String key) {
        if (key.isEmpty()) {
            return EMPTY;
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        for (String pair : key.split(",")) {
            int eq = pair.indexOf('=');
            sorted.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        return new LabelSet(key, Collections.unmodifiableSortedMap(sorted));
    }

    private static String join(SortedMap<String, String> sorted) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(e.getKey()).append('=').append(e.getValue());
        }
        return b.toString();
    }

    /** Unmodifiable, sorted by name. */
    public SortedMap<String, String> asMap() {
        return labels;
    }

    public int size() {
        return labels.size();
    }

    /**
     * Whether these labels carry every name=value pair of {@code required} (and maybe more): one walk
     * along both sorted lists of names (the hot path of placement's quota checks).
     */
    public boolean includes(LabelSet required) {
        if (required == this || required.names.length == 0) {
            return true;
        }
        String[] want = required.names;
        if (want.length > names.length) {
            return false;
        }
        int i = 0;
        for (int r = 0; r < want.length; r++) {
            String name = want[r];
            int c = -1;
            while (i < names.length && (c = names[i].compareTo(name)) < 0) {
                i++;
            }
            if (c != 0 || !values[i].equals(required.values[r])) {
                return false;
            }
            i++;
        }
        return true;
    }

    /** Whether these labels carry every name=value pair of {@code required} (and maybe more). */
    public boolean includes(Map<String, String> required) {
        if (required.size() > labels.size()) {
            return false;
        }
        for (Map.Entry<String, String> r : required.entrySet()) {
            if (!r.getValue().equals(labels.get(r.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** The pairs of {@code required} these labels do not carry, as a key ({@code ""} when none is missing). */
    public String missing(LabelSet required) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> r : required.labels.entrySet()) {
            if (!r.getValue().equals(labels.get(r.getKey()))) {
                b.append(b.isEmpty() ? "" : ",").append(r.getKey()).append('=').append(r.getValue());
            }
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return key().isEmpty() ? "(no labels)" : key();
    }
}
