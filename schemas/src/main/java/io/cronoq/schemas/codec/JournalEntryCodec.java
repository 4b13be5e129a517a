package io.cronoq.schemas.codec;

import static io.cronoq.schemas.codec.Binary.instant;
import static io.cronoq.schemas.codec.Binary.optionalInstant;
import static io.cronoq.schemas.codec.Binary.optionalString;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import java.io.IOException;
import java.time.Instant;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * A journal record: its pool, time, first event and cause, the further entries (each with its own times where they
 * differ from the entry's before it), and when the scheduler heard the first entry's input. The events every task
 * passes through are written by hand, the rarer ones by Avro.
 */
public final class JournalEntryCodec implements RecordCodec<JournalEntry> {

    /** The fingerprint of the JournalEntry schema this codec writes; a changed schema fails a test until it follows. */
    static final long PINNED = 0xb8407bd92c1158ebL;

    private final RecordUnion events =
            new RecordUnion(JournalEntry.getClassSchema().getField("event").schema(), JournalEntry.class);
    private final Part<JournalItem> item = new Part<>() {
        @Override
        public void write(JournalItem i, Encoder out) throws IOException {
            item(out, i.getEvent(), i.getCause(), i.getAt(), i.getHeardAt());
        }

        @Override
        public JournalItem read(Decoder in) throws IOException {
            return new JournalItem(events.read(in), optionalString(in), optionalInstant(in), optionalInstant(in));
        }
    };

    @Override
    public Class<JournalEntry> type() {
        return JournalEntry.class;
    }

    @Override
    public long pinned() {
        return PINNED;
    }

    @Override
    public void write(JournalEntry e, Encoder out) throws IOException {
        head(out, e.getPool(), e.getAt(), e.getEvent(), e.getCause());
        Binary.array(out, e.getMore(), item);
        tail(out, e.getHeardAt());
    }

    /** The fields before the array of further entries: the pool, the first entry's time, event and cause. */
    void head(Encoder out, String pool, Instant at, Object event, String cause) throws IOException {
        out.writeString(pool);
        instant(out, at);
        events.write(event, out);
        optionalString(out, cause);
    }

    /** One further entry, as a {@link JournalItem} of these fields is written in the array. */
    void item(Encoder out, Object event, String cause, Instant at, Instant heardAt) throws IOException {
        events.write(event, out);
        optionalString(out, cause);
        optionalInstant(out, at);
        optionalInstant(out, heardAt);
    }

    /** The field after the array: when the scheduler heard the first entry's input. */
    void tail(Encoder out, Instant heardAt) throws IOException {
        optionalInstant(out, heardAt);
    }

    @Override
    public JournalEntry read(Decoder in) throws IOException {
        return new JournalEntry(in.readString(), instant(in), events.read(in), optionalString(in),
                Binary.array(in, item), optionalInstant(in));
    }
}
