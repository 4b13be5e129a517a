package io.cronoq.schemas;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * A generated class's model that finds the branch of a union a record is written as once per
 * (union, class), not by name on every write: Avro's own lookup builds the record's full name and
 * hashes it into the union's names for every union value, which was a tenth of a stream thread's
 * encoding. A generated record's class names exactly one branch, so the answer cannot change; any
 * other value (null, strings, numbers, maps) is resolved as Avro resolves it.
 */
final class UnionBranches extends SpecificData {

    private final ClassValue<ConcurrentHashMap<Schema, Integer>> byClass = new ClassValue<>() {
        @Override
        protected ConcurrentHashMap<Schema, Integer> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** A model with {@code base}'s class loader and logical type conversions. */
    UnionBranches(SpecificData base, ClassLoader loader) {
        super(loader);
        base.getConversions().forEach(this::addLogicalTypeConversion);
    }

    @Override
    public int resolveUnion(Schema union, Object datum) {
        if (!(datum instanceof SpecificRecord)) {
            return super.resolveUnion(union, datum);
        }
        ConcurrentHashMap<Schema, Integer> known = byClass.get(datum.getClass());
        Integer branch = known.get(union);
        if (branch == null) {
            branch = super.resolveUnion(union, datum);
            known.put(union, branch);
        }
        return branch;
    }
}
