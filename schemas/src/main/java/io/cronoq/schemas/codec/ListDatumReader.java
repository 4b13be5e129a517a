package io.cronoq.schemas.codec;

import java.util.ArrayList;
import java.util.Collection;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * Avro's reader of generated classes, reading arrays into {@link ArrayList}s, whose {@code equals} and
 * {@code hashCode} are the elements'. Avro's fast reader builds {@code GenericData.Array}s instead, whose
 * {@code equals} ignores logical types and throws on records holding arrays of records with timestamps (e.g.
 * {@code TaskRecord.attempts}), so decoded records would not compare; {@link #readingModel} turns it off.
 */
public final class ListDatumReader<T> extends SpecificDatumReader<T> {

    public ListDatumReader(Schema writer, Schema reader, SpecificData model) {
        super(writer, reader, model);
    }

    /**
     * A class's model without Avro's fast reader. Reading arrays into lists costs about a microsecond on a full
     * TaskRecord (measured ~2.8 us against ~1.7 us).
     */
    public static SpecificData readingModel(Class<?> type) {
        SpecificData model = SpecificData.getForClass(type);
        SpecificData readModel = new SpecificData(type.getClassLoader());
        model.getConversions().forEach(readModel::addLogicalTypeConversion);
        readModel.setFastReaderEnabled(false);
        return readModel;
    }

    @Override
    protected Object newArray(Object old, int size, Schema schema) {
        if (old instanceof Collection<?> collection) {
            collection.clear();
            return old;
        }
        return new ArrayList<>(size);
    }
}
