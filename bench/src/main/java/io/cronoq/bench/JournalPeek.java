package io.cronoq.bench;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * Counts the {@code TaskFinished} SUCCEEDED entries of a journal record, and can name the task of each
 * {@code AttemptAssigned} entry with the moment the scheduler heard the input that caused it, without
 * decoding the rest: decoding every entry would charge the bench's own reader to the scheduler on a small
 * machine. It walks the record's bytes, skipping every other event by its schema, and only for records
 * written with the schema id it was given (the current {@link JournalEntry} schema); for any other it answers
 * {@link #UNKNOWN} and the caller decodes in full.
 */
public final class JournalPeek {

    /** The record could not be read from the bytes alone. */
    public static final int UNKNOWN = -1;

    private static final List<Schema> EVENTS = JournalEntry.getClassSchema().getField("event").schema().getTypes();
    private static final int FINISHED = branchOf(TaskFinished.getClassSchema().getFullName());
    private static final int ASSIGNED = branchOf(AttemptAssigned.getClassSchema().getFullName());
    /** AttemptAssigned's fields after its first, the task id. */
    private static final List<Schema> AFTER_TASK_ID = AttemptAssigned.getClassSchema().getFields().stream()
            .skip(1).map(Schema.Field::schema).toList();
    private static final int SUCCEEDED = TaskState.SUCCEEDED.ordinal();
    /** TaskFinished's fields before its state: taskId, attempt, workerId, outcome. */
    private static final List<Schema> BEFORE_STATE = TaskFinished.getClassSchema().getFields().stream()
            .takeWhile(f -> !f.name().equals("state")).map(Schema.Field::schema).toList();
    private static final Schema AFTER_STATE = TaskFinished.getClassSchema().getField("error").schema();
    private static final Schema CAUSE = JournalItem.getClassSchema().getField("cause").schema();

    /** Told the task of each assignment and when the scheduler heard its input, in epoch milliseconds. */
    public interface AssignmentListener {
        void assigned(String taskId, long heardAtMs);
    }

    /** An absent optional time. */
    private static final long NONE = Long.MIN_VALUE;

    private final int schemaId;
    private BinaryDecoder decoder;
    /**
     * While walking a record for a listener: the tasks assigned in it, and when the scheduler heard the input of each
     * ({@link #NONE}: the record's first input, whose time is read at the record's end).
     */
    private final List<String> assignedTasks = new ArrayList<>();
    private long[] assignedHeardAt = new long[64];

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
        return succeeded(value, null);
    }

    /**
     * How many of the record's entries are a {@code TaskFinished} SUCCEEDED, or {@link #UNKNOWN}; when it is known and
     * {@code listener} is not null, the listener is told each {@code AttemptAssigned} entry's task, in order.
     */
    public int succeeded(byte[] value, AssignmentListener listener) {
        if (value == null || value.length < 6 || value[0] != 0) {
            return UNKNOWN;
        }
        int id = ((value[1] & 0xff) << 24) | ((value[2] & 0xff) << 16) | ((value[3] & 0xff) << 8) | (value[4] & 0xff);
        if (id != schemaId) {
            return UNKNOWN;
        }
        decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
        assignedTasks.clear();
        boolean listening = listener != null;
        try {
            decoder.skipString(); // pool
            long firstAt = decoder.readLong();
            long heard = NONE; // when the input of the entry just read was heard; the first one's comes last
            int count = entry(listening, heard);
            for (long n = decoder.readArrayStart(); n != 0; n = decoder.arrayNext()) {
                for (long i = 0; i < n; i++) {
                    int before = assignedTasks.size();
                    count += entry(listening, heard);
                    long at = optionalLong();
                    long heardAt = optionalLong();
                    if (at != NONE) { // caused by another input than the entry before it
                        heard = heardAt != NONE ? heardAt : at;
                        Arrays.fill(assignedHeardAt, before, assignedTasks.size(), heard);
                    }
                }
            }
            long heardAt = optionalLong();
            if (!decoder.isEnd()) {
                return UNKNOWN;
            }
            if (listening) {
                long first = heardAt != NONE ? heardAt : firstAt;
                for (int k = 0; k < assignedTasks.size(); k++) {
                    listener.assigned(assignedTasks.get(k), assignedHeardAt[k] == NONE ? first : assignedHeardAt[k]);
                }
            }
            return count;
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** A {@code ["null", long]} union's value, {@link #NONE} for null. */
    private long optionalLong() throws IOException {
        return decoder.readIndex() == 0 ? NONE : decoder.readLong();
    }

    /**
     * Reads one entry's event and cause; 1 when it is a TaskFinished SUCCEEDED. With {@code tasks}, an AttemptAssigned's
     * task is kept with {@code heard}, the time of the entry before it, until the entry's own times are read.
     */
    private int entry(boolean tasks, long heard) throws IOException {
        int branch = decoder.readIndex();
        int found = 0;
        if (branch == FINISHED) {
            for (Schema field : BEFORE_STATE) {
                GenericDatumReader.skip(field, decoder);
            }
            found = decoder.readEnum() == SUCCEEDED ? 1 : 0;
            GenericDatumReader.skip(AFTER_STATE, decoder);
        } else if (branch == ASSIGNED && tasks) {
            int k = assignedTasks.size();
            if (k == assignedHeardAt.length) {
                assignedHeardAt = Arrays.copyOf(assignedHeardAt, 2 * k);
            }
            assignedHeardAt[k] = heard;
            assignedTasks.add(decoder.readString());
            for (Schema field : AFTER_TASK_ID) {
                GenericDatumReader.skip(field, decoder);
            }
        } else {
            GenericDatumReader.skip(EVENTS.get(branch), decoder);
        }
        GenericDatumReader.skip(CAUSE, decoder);
        return found;
    }
}
