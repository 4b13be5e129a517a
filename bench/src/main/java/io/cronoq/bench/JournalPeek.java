package io.cronoq.bench;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Counts the {@code TaskFinished} SUCCEEDED entries of a journal record without decoding the rest:
 * decoding every entry would charge the bench's own reader to the scheduler on a small machine. It
 * walks the record's bytes, skipping every event that is not a {@code TaskFinished} by its schema,
 * and only for records written with the schema id it was given (the current {@link JournalEntry}
 * schema); for any other it answers {@link #UNKNOWN} and the caller decodes in full.
 */
public final class JournalPeek {

    /** The record could not be read from the bytes alone. */
    public static final int UNKNOWN = -1;

    private static final List<Schema> EVENTS = JournalEntry.getClassSchema().getField("event").schema().getTypes();
    private static final int FINISHED = branchOf(TaskFinished.getClassSchema().getFullName());
    private static final int SUCCEEDED = TaskState.SUCCEEDED.ordinal();
    /** TaskFinished's fields before its state: taskId, attempt, workerId, outcome. */
    private static final List<Schema> BEFORE_STATE = TaskFinished.getClassSchema().getFields().stream()
            .takeWhile(f -> !f.name().equals("state")).map(Schema.Field::schema).toList();
    private static final Schema AFTER_STATE = TaskFinished.getClassSchema().getField("error").schema();
    private static final Schema CAUSE = JournalItem.getClassSchema().getField("cause").schema();
    /** A further entry's own times, after its cause. */
    private static final Schema ITEM_AT = JournalItem.getClassSchema().getField("at").schema();
    private static final Schema ITEM_HEARD_AT = JournalItem.getClassSchema().getField("heardAt").schema();
    /** The record's last field, after its entries: when the scheduler heard its input. */
    private static final Schema HEARD_AT = JournalEntry.getClassSchema().getField("heardAt").schema();

    private final int schemaId;
    private BinaryDecoder decoder;

    /** @param schemaId the registry id of the current {@link JournalEntry} schema under the journal's subject */
    public JournalPeek(int schemaId) {
        this.schemaId = schemaId;
    }

    /** The index in {@code JournalEntry.event}'s union of the event type named {@code fullName}. */
    private static int branchOf(String fullName) {
        Integer index = JournalEntry.getClassSchema().getField("event").schema().getIndexNamed(fullName);
        if (index == null) {
            throw new IllegalArgumentException(fullName + " is not an event of the journal");
        }
        return index;
    }

    /** How many of the record's entries are a {@code TaskFinished} SUCCEEDED, or {@link #UNKNOWN}. */
    public int succeeded(byte[] value) {
        if (value == null || value.length < 6 || value[0] != 0) {
            return UNKNOWN;
        }
        int id = ((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff);
        if (id != schemaId) {
            return UNKNOWN;
        }
        decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
        try {
            decoder.skipString(); // pool
            decoder.readLong(); // at
            int count = entry();
            for (long n = decoder.readArrayStart(); n != 0; n = decoder.arrayNext()) {
                for (long i = 0; i < n; i++) {
                    count += entry();
                    GenericDatumReader.skip(ITEM_AT, decoder);
                    GenericDatumReader.skip(ITEM_HEARD_AT, decoder);
                }
            }
            GenericDatumReader.skip(HEARD_AT, decoder);
            return decoder.isEnd() ? count : UNKNOWN;
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** Reads one entry's event and cause; 1 when it is a TaskFinished SUCCEEDED. */
    private int entry() throws IOException {
        int branch = decoder.readIndex();
        int found = 0;
        if (branch == FINISHED) {
            for (Schema field : BEFORE_STATE) {
                GenericDatumReader.skip(field, decoder);
            }
            found = decoder.readEnum() == SUCCEEDED ? 1 : 0;
            GenericDatumReader.skip(AFTER_STATE, decoder);
        } else {
            GenericDatumReader.skip(EVENTS.get(branch), decoder);
        }
        GenericDatumReader.skip(CAUSE, decoder);
        return found;
    }
}
