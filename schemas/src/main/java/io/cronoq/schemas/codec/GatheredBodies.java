package io.cronoq.schemas.codec;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Arrays;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Writes journal and assignments records while they are gathered, entry by entry: a record's fields before its
 * array of further entries when it is started, each further entry when it is added, and the rest when it is
 * finished. {@link #finishJournal} and {@link #finishAssignments} return the bytes Avro's writer writes for the
 * whole record (the body, without the wire header), with the array in one block as Avro writes it. An entry's
 * objects are read once, soon after they were made, rather than again from far memory when the record is sent: a
 * profile at 5,000 tasks/s found most of the journal's encoding at the first touch of events made up to one commit
 * interval earlier.
 *
 * <p>Not thread-safe: one per thread that gathers. The class cannot be loaded while the JournalEntry or
 * AssignmentEvent schema differs from the one its codec pins.
 */
public final class GatheredBodies {

    /** A record being gathered: its first part, its further entries, and what follows them. */
    public static final class Body {
        private final byte[] head;
        private final Instant heardAt;
        private byte[] items = new byte[0];
        private int length;
        private int count;

        private Body(byte[] head, Instant heardAt) {
            this.head = head;
            this.heardAt = heardAt;
        }

        private void append(Scratch item) {
            int size = item.size();
            if (length + size > items.length) {
                items = Arrays.copyOf(items, Math.max(length + size, Math.max(64, 2 * items.length)));
            }
            System.arraycopy(item.bytes(), 0, items, length, size);
            length += size;
            count++;
        }
    }

    /** The codecs the serde writes these records with, looked up (and their schemas checked) once. */
    private static final JournalEntryCodec JOURNAL = (JournalEntryCodec) codecOf(JournalEntry.class);
    private static final AssignmentEventCodec ASSIGNMENTS = (AssignmentEventCodec) codecOf(AssignmentEvent.class);

    private final Scratch scratch = new Scratch();
    private BinaryEncoder out = EncoderFactory.get().binaryEncoder(scratch, null);

    private static RecordCodec<?> codecOf(Class<? extends SpecificRecord> type) {
        return Codecs.forType(type, SpecificData.getForClass(type).getSchema(type)).orElseThrow(() ->
                new IllegalStateException("the " + type.getSimpleName() + " schema changed without its codec: "
                        + "make the codec write the new schema and pin its fingerprint"));
    }

    /** Starts a journal record of {@code pool} with its first entry. */
    public Body journal(String pool, Instant at, Object event, String cause, Instant heardAt) {
        write(event, () -> JOURNAL.head(out, pool, at, event, cause));
        return new Body(scratch.toByteArray(), heardAt);
    }

    /** Adds a further entry to a journal record; {@code at} and {@code heardAt} are null when they are the entry's before. */
    public void journalItem(Body body, Object event, String cause, Instant at, Instant heardAt) {
        append(body, event, () -> JOURNAL.item(out, event, cause, at, heardAt));
    }

    /** Starts an assignments record with its first event. */
    public Body assignments(Object event) {
        write(event, () -> ASSIGNMENTS.event(out, event));
        return new Body(scratch.toByteArray(), null);
    }

    /** Adds a further event to an assignments record. */
    public void assignment(Body body, Object event) {
        append(body, event, () -> ASSIGNMENTS.event(out, event));
    }

    /** The journal record's body: Avro's bytes of the JournalEntry holding every entry added. */
    public byte[] finishJournal(Body body) {
        return finish(body, () -> JOURNAL.tail(out, body.heardAt));
    }

    /** The assignments record's body: Avro's bytes of the AssignmentEvent holding every event added. */
    public byte[] finishAssignments(Body body) {
        return finish(body, () -> { });
    }

    private byte[] finish(Body body, Writing tail) {
        write(null, () -> {
            out.writeFixed(body.head);
            // An array as Avro writes it: one block (its count, then its items) when there are items, then 0.
            if (body.count > 0) {
                out.writeLong(body.count);
                out.writeFixed(body.items, 0, body.length);
            }
            out.writeLong(0);
            tail.to();
        });
        return scratch.toByteArray();
    }

    private void append(Body body, Object event, Writing item) {
        write(event, item);
        body.append(scratch);
    }

    /** Writes into the emptied scratch buffer, which holds the bytes until the next write. */
    private void write(Object event, Writing writing) {
        scratch.reset();
        try {
            writing.to();
            out.flush();
        } catch (IOException | RuntimeException e) {
            // The encoder may hold bytes of what failed: the next write starts with a new one.
            out = EncoderFactory.get().binaryEncoder(scratch, null);
            throw new IllegalArgumentException("cannot write a journal or assignments entry: " + avroError(event, e)
                    + ". Build its event with the event's builder, which checks required fields.", e);
        }
    }

    /** What Avro's own writer says of the event, which names a required field left null; else the codec's error. */
    private static String avroError(Object event, Exception codecError) {
        if (event != null) {
            try {
                SpecificDatumWriter<Object> avro = new SpecificDatumWriter<>(SpecificData.getForClass(event.getClass())
                        .getSchema(event.getClass()), SpecificData.getForClass(event.getClass()));
                avro.write(event, EncoderFactory.get().binaryEncoder(OutputStream.nullOutputStream(), null));
            } catch (IOException | RuntimeException e) {
                return e.getMessage();
            }
        }
        return String.valueOf(codecError);
    }

    /** The scratch buffer, its bytes readable without a copy. */
    private static final class Scratch extends ByteArrayOutputStream {
        Scratch() {
            super(256);
        }

        byte[] bytes() {
            return buf;
        }
    }

    @FunctionalInterface
    private interface Writing {
        void to() throws IOException;
    }
}
