package io.cronoq.ops.replay;

import io.cronoq.schemas.rules.Rules;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A what-if change to the fleet: workers added to a pool from the start, and groups whose
 * registrations are dropped. Parsed from {@code --add-workers POOL:LABELS:COUNTxSLOTS} and
 * {@code --remove-group POOL:LABELS} (labels {@code a=b,c=d}, empty for none; a pool name may
 * itself hold colons, so the fields are split from the right).
 */
record FleetChange(List<AddWorkers> added, List<RemoveGroup> removed) {

    /** Largest COUNT one {@code --add-workers} may add. */
    static final int MAX_COUNT = 10_000;

    /** {@code count} workers with {@code labels} and {@code slots} slots each, in {@code pool}, present from the start. */
    record AddWorkers(String pool, Map<String, String> labels, int count, int slots) {

        static final String FORM = "POOL:LABELS:COUNTxSLOTS, e.g. 'batch:gpu=a100:2x4' (labels a=b,c=d, empty for none)";
        private static final Pattern SIZE = Pattern.compile("(\\d{1,9})x(\\d{1,9})");

        static AddWorkers parse(String text) {
            int last = text.lastIndexOf(':');
            int mid = last < 0 ? -1 : text.lastIndexOf(':', last - 1);
            if (mid < 0) {
                throw new IllegalArgumentException("'" + text + "' is not " + FORM);
            }
            String pool = parsePool(text.substring(0, mid), text);
            Map<String, String> labels = parseLabels(text.substring(mid + 1, last), text);
            Matcher size = SIZE.matcher(text.substring(last + 1).trim());
            if (!size.matches()) {
                throw new IllegalArgumentException("'" + text + "': '" + text.substring(last + 1)
                        + "' is not COUNTxSLOTS such as 2x4");
            }
            int count = Integer.parseInt(size.group(1));
            int slots = Integer.parseInt(size.group(2));
            if (count < 1 || count > MAX_COUNT) {
                throw new IllegalArgumentException("'" + text + "': COUNT is " + count + "; add 1 to " + MAX_COUNT
                        + " workers");
            }
            Rules.slots(slots).ifPresent(v -> {
                throw new IllegalArgumentException("'" + text + "': " + v.message());
            });
            return new AddWorkers(pool, labels, count, slots);
        }
    }

    /** The group of {@code pool} whose workers carry exactly {@code labels}. */
    record RemoveGroup(String pool, Map<String, String> labels) {

        static final String FORM = "POOL:LABELS, e.g. 'batch:gpu=a100' (labels a=b,c=d, empty for none)";

        static RemoveGroup parse(String text) {
            int last = text.lastIndexOf(':');
            if (last < 0) {
                throw new IllegalArgumentException("'" + text + "' is not " + FORM);
            }
            return new RemoveGroup(parsePool(text.substring(0, last), text), parseLabels(text.substring(last + 1), text));
        }

        boolean matches(String pool, Map<String, String> labels) {
            return this.pool.equals(pool) && this.labels.equals(Map.copyOf(labels));
        }
    }

    /** No change at all: the simulation must reproduce the recording. */
    static FleetChange none() {
        return new FleetChange(List.of(), List.of());
    }

    boolean isNone() {
        return added.isEmpty() && removed.isEmpty();
    }

    /** Whether a registration in {@code pool} with these labels is dropped. */
    boolean removes(String pool, Map<String, String> labels) {
        for (RemoveGroup r : removed) {
            if (r.matches(pool, labels)) {
                return true;
            }
        }
        return false;
    }

    private static String parsePool(String pool, String text) {
        if (!Rules.isPool(pool)) {
            throw new IllegalArgumentException("'" + text + "': '" + pool + "' is not a pool name");
        }
        return pool;
    }

    private static Map<String, String> parseLabels(String labels, String text) {
        try {
            return Map.copyOf(Labels.parse(labels));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
        }
    }

    /** Picocli converter of {@code --add-workers}: a bad value is a usage error naming the flag. */
    static final class AddWorkersConverter extends Converters.Parsing<AddWorkers> {
        AddWorkersConverter() { super(AddWorkers::parse); }
    }

    /** Picocli converter of {@code --remove-group}: a bad value is a usage error naming the flag. */
    static final class RemoveGroupConverter extends Converters.Parsing<RemoveGroup> {
        RemoveGroupConverter() { super(RemoveGroup::parse); }
    }
}
