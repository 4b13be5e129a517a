package io.cronoq.ops.bench;

import io.cronoq.events.JournalEntry;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Tells which event a journal record carries without decoding it: the journal is several records per
 * task, and decoding them all would charge the bench's own reader to the scheduler on a small
 * machine. It reads only the union branch after {@code pool} and {@code at}, and only for records
 * written with the schema id it was given (the current {@link JournalEntry} schema); for any other it
 * answers {@link #UNKNOWN} and the caller decodes in full.
 */
public final class JournalPeek {

    /** The branch could not be read from the bytes alone. */
    public static final int UNKNOWN = -1;

    private final int schemaId;
    private BinaryDecoder decoder;

    /** @param schemaId the registry id of the current {@link JournalEntry} schema under the journal's subject */
    public JournalPeek(int schemaId) {
        this.schemaId = schemaId;
    }

    /** The index in {@code JournalEntry.event}'s union of the event type named {@code fullName}. */
    public static int branchOf(String fullName) {
        Schema union = JournalEntry.getClassSchema().getField("event").schema();
        Integer index = union.getIndexNamed(fullName);
        if (index == null) {
            throw new IllegalArgumentException(fullName + " is not an event of the journal");
        }
        return index;
    }

    /** The union branch of the record's event, or {@link #UNKNOWN}. */
    public int branch(byte[] value) {
        if (value == null || value.length < 6 || value[0] != 0) {
            return UNKNOWN;
        }
        int id = ((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff);
        if (id != schemaId) {
            return UNKNOWN;
        }
        decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
        try {
            decoder.skipString();
            decoder.readLong();
            return decoder.readIndex();
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }
}
