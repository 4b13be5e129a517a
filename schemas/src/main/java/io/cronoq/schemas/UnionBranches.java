package io.cronoq.schemas;

import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * A generated class's model that finds the branch of a union a value is written as once per
 * (union, class), not by name on every write: Avro's own lookup builds the value's type name and
 * hashes it into the union's names for every union value, which was a tenth of a stream thread's
 * encoding. A generated record's class names exactly one branch, and null and a string each name
 * one, so the answer cannot change; any other value (numbers, maps, bytes) is resolved as Avro
 * resolves it.
 */
final class UnionBranches extends SpecificData {

    private final ClassValue<ConcurrentHashMap<Schema, Integer>> byClass = new ClassValue<>() {
        @Override
        protected ConcurrentHashMap<Schema, Integer> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };
    private final ConcurrentHashMap<Schema, Integer> ofNull = new ConcurrentHashMap<>();

    /** A model with {@code base}'s class loader and logical type conversions. */
    UnionBranches(SpecificData base, ClassLoader loader) {
        super(loader);
        base.getConversions().forEach(this::addLogicalTypeConversion);
    }

    @Override
    public int resolveUnion(Schema union, Object datum) {
        ConcurrentHashMap<Schema, Integer> known;
        if (datum == null) {
            known = ofNull;
        } else if (datum instanceof SpecificRecord || datum instanceof String) {
            known = byClass.get(datum.getClass());
        } else {
            return super.resolveUnion(union, datum);
        }
        Integer branch = known.get(union);
        if (branch == null) {
            branch = super.resolveUnion(union, datum);
            known.put(union, branch);
        }
        return branch;
    }
}
