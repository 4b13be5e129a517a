package io.cronoq.scheduler.query;

import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The canonical label key the scheduler's stores use for groups and requirement classes —
 * {@code name=value} pairs sorted by name, joined with commas, {@code ""} for none — and its inverse.
 * It is unambiguous because validated label names and values contain neither {@code =} nor {@code ,}.
 * A class key may go on after a {@code |} (what the class needs besides labels); {@link #parse}
 * reads the labels only.
 */
public final class ClassKeys {

    private ClassKeys() {}

    /** The key of these labels: {@code gpu=a100,zone=eu}. */
    public static String of(Map<String, String> labels) {
        StringBuilder key = new StringBuilder();
        for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
            if (key.length() > 0) {
                key.append(',');
            }
            key.append(label.getKey()).append('=').append(label.getValue());
        }
        return key.toString();
    }

    /** The labels a group or class key names, sorted by name (of a class key, the part before any {@code |}). */
    public static SortedMap<String, String> parse(String key) {
        int bar = key.indexOf('|');
        String labelKey = bar < 0 ? key : key.substring(0, bar);
        TreeMap<String, String> labels = new TreeMap<>();
        if (!labelKey.isEmpty()) {
            for (String pair : labelKey.split(",")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("'" + key + "' is not a label key: '" + pair
                            + "' is not name=value");
                }
                labels.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        return Collections.unmodifiableSortedMap(labels);
    }

    /** Whether a group carrying {@code groupLabels} carries every pair of {@code required} (the group rule: a group serves a task whose every required label it carries). */
    public static boolean includes(Map<String, String> groupLabels, Map<String, String> required) {
        for (Map.Entry<String, String> r : required.entrySet()) {
            if (!r.getValue().equals(groupLabels.get(r.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
