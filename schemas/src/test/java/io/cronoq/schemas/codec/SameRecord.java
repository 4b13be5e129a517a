package io.cronoq.schemas.codec;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;

/**
 * Whether two records read from the same bytes are the same, field by field down to the leaves: the same class at
 * every level (a {@code String} is not a {@code Utf8}, an {@code ArrayList} not Avro's array), lists in order,
 * maps by key, and each leaf by its own {@code equals} (so two NaNs are equal, which Avro's record equality does
 * not hold). A direct walk, as the tests compare thousands of large random records (AssertJ's recursive
 * comparison took most of a minute for them).
 */
public final class SameRecord {

    private SameRecord() {}

    /**
     * Throws an {@link AssertionError} naming the first path (starting with {@code path}) where {@code actual}
     * differs from {@code expected}.
     */
    public static void same(Object actual, Object expected, String path) {
        if (actual == null || expected == null) {
            if (actual != expected) {
                throw differs(path, actual, expected);
            }
            return;
        }
        if (actual.getClass() != expected.getClass()) {
            throw new AssertionError(path + ": a " + actual.getClass().getName() + " where Avro reads a "
                    + expected.getClass().getName());
        }
        if (actual instanceof SpecificRecord a) {
            SpecificRecord e = (SpecificRecord) expected;
            List<Schema.Field> fields = a.getSchema().getFields();
            for (int i = 0; i < fields.size(); i++) {
                same(a.get(i), e.get(i), path + "." + fields.get(i).name());
            }
        } else if (actual instanceof List<?> a) {
            List<?> e = (List<?>) expected;
            if (a.size() != e.size()) {
                throw differs(path + ".size()", a.size(), e.size());
            }
            Iterator<?> ei = e.iterator();
            int i = 0;
            for (Object item : a) {
                same(item, ei.next(), path + "[" + i++ + "]");
            }
        } else if (actual instanceof Map<?, ?> a) {
            Map<?, ?> e = (Map<?, ?>) expected;
            if (!a.keySet().equals(e.keySet())) {
                throw differs(path + ".keySet()", a.keySet(), e.keySet());
            }
            for (Map.Entry<?, ?> entry : a.entrySet()) {
                same(entry.getValue(), e.get(entry.getKey()), path + "[" + entry.getKey() + "]");
            }
        } else if (!actual.equals(expected)) {
            throw differs(path, actual, expected);
        }
    }

    private static AssertionError differs(String path, Object actual, Object expected) {
        return new AssertionError(path + ": " + actual + " where Avro reads " + expected);
    }
}
