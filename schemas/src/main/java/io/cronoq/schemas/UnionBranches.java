package io.cronoq.schemas;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * A generated class's model that finds the branch of a union a value is written as without Avro's
 * lookup by name, which builds the value's type name and hashes it into the union's names for every
 * union value (a tenth of a stream thread's encoding). A generated record's class names exactly one
 * branch of a union, found once per (union, class) and remembered by the union's identity (equal
 * unions of different fields are different instances, and comparing them is costlier than the
 * lookup); null and a string take the union's null and string branch. Any other value (numbers,
 * maps, bytes) is resolved as Avro resolves it.
 */
final class UnionBranches extends SpecificData {

    /** The branches found for one record class: parallel arrays, replaced whole when one is added. */
    private record Known(Schema[] unions, int[] branches) {
        static final Known NONE = new Known(new Schema[0], new int[0]);

        int find(Schema union) {
            for (int i = 0; i < unions.length; i++) {
                if (unions[i] == union) {
                    return branches[i];
                }
            }
            return -1;
        }

        Known with(Schema union, int branch) {
            Schema[] u = Arrays.copyOf(unions, unions.length + 1);
            int[] b = Arrays.copyOf(branches, branches.length + 1);
            u[unions.length] = union;
            b[branches.length] = branch;
            return new Known(u, b);
        }
    }

    /** Per record class, its branches so far; replaced whole (never changed) when one is added. */
    private final ClassValue<AtomicReference<Known>> byClass = new ClassValue<>() {
        @Override
        protected AtomicReference<Known> computeValue(Class<?> type) {
            return new AtomicReference<>(Known.NONE);
        }
    };

    /** A model with {@code base}'s class loader and logical type conversions. */
    UnionBranches(SpecificData base, ClassLoader loader) {
        super(loader);
        base.getConversions().forEach(this::addLogicalTypeConversion);
    }

    @Override
    public int resolveUnion(Schema union, Object datum) {
        if (datum == null) {
            return branchOfType(union, Schema.Type.NULL, datum);
        }
        if (datum instanceof String) {
            return branchOfType(union, Schema.Type.STRING, datum);
        }
        if (!(datum instanceof SpecificRecord)) {
            return super.resolveUnion(union, datum);
        }
        var known = byClass.get(datum.getClass());
        int branch = known.get().find(union);
        if (branch < 0) {
            branch = super.resolveUnion(union, datum);
            int found = branch;
            known.updateAndGet(k -> k.find(union) >= 0 ? k : k.with(union, found));
        }
        return branch;
    }

    /** The union's branch of this primitive type, or Avro's answer when it has none (its error). */
    private int branchOfType(Schema union, Schema.Type type, Object datum) {
        List<Schema> types = union.getTypes();
        for (int i = 0; i < types.size(); i++) {
            if (types.get(i).getType() == type && types.get(i).getLogicalType() == null) {
                return i;
            }
        }
        return super.resolveUnion(union, datum);
    }
}
