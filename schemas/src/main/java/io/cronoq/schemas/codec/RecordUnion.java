package io.cronoq.schemas.codec;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * A union of record types: the branch index, then the record. Branches with a hand-written part
 * ({@link EventParts#byClass}) are written by it; every other branch by Avro's writer and reader of that
 * branch's schema, which write and read the same bytes Avro would nested in the union.
 */
final class RecordUnion implements Part<Object> {

    private final Map<Class<?>, Integer> indexByClass = new HashMap<>();
    private final Part<Object>[] branches;

    @SuppressWarnings("unchecked")
    RecordUnion(Schema union, Class<?> owner) {
        SpecificData model = SpecificData.getForClass(owner);
        SpecificData readModel = ListDatumReader.readingModel(owner);
        Map<Class<?>, Part<?>> handWritten = EventParts.byClass();
        List<Schema> types = union.getTypes();
        branches = new Part[types.size()];
        for (int i = 0; i < types.size(); i++) {
            Schema branch = types.get(i);
            Class<?> type = model.getClass(branch);
            indexByClass.put(type, i);
            Part<?> part = handWritten.get(type);
            branches[i] = part != null ? (Part<Object>) part : avro(branch, model, readModel);
        }
    }

    private static Part<Object> avro(Schema branch, SpecificData model, SpecificData readModel) {
        SpecificDatumWriter<Object> writer = new SpecificDatumWriter<>(branch, model);
        ListDatumReader<Object> reader = new ListDatumReader<>(branch, branch, readModel);
        return new Part<>() {
            @Override
            public void write(Object value, Encoder out) throws IOException {
                writer.write(value, out);
            }

            @Override
            public Object read(Decoder in) throws IOException {
                return reader.read(null, in);
            }
        };
    }

    @Override
    public void write(Object value, Encoder out) throws IOException {
        Integer index = indexByClass.get(value.getClass());
        if (index == null) {
            throw new IllegalArgumentException("a " + value.getClass().getName() + " is not a branch of this union");
        }
        out.writeIndex(index);
        branches[index].write(value, out);
    }

    @Override
    public Object read(Decoder in) throws IOException {
        int index = in.readIndex();
        if (index < 0 || index >= branches.length) {
            throw new IOException("union branch " + index + " of a union of " + branches.length);
        }
        return branches[index].read(in);
    }
}
