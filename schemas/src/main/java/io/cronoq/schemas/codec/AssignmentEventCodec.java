package io.cronoq.schemas.codec;

import io.cronoq.events.AssignmentEvent;
import java.io.IOException;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * A record of the assignments topic: its first event and the further ones, each of one union; an assignment is
 * written by hand, a revocation, a fencing and a registration's answer by Avro.
 */
public final class AssignmentEventCodec implements RecordCodec<AssignmentEvent> {

    /** The fingerprint of the AssignmentEvent schema this codec writes; a changed schema fails a test until it follows. */
    static final long PINNED = 0x398e648ddf28c417L;

    private final RecordUnion event =
            new RecordUnion(AssignmentEvent.getClassSchema().getField("event").schema(), AssignmentEvent.class);

    @Override
    public Class<AssignmentEvent> type() {
        return AssignmentEvent.class;
    }

    @Override
    public long pinned() {
        return PINNED;
    }

    @Override
    public void write(AssignmentEvent a, Encoder out) throws IOException {
        event(out, a.getEvent());
        Binary.array(out, a.getMore(), event);
    }

    /** One event: the record's first, before the array, and each of the array's. */
    void event(Encoder out, Object value) throws IOException {
        event.write(value, out);
    }

    @Override
    public AssignmentEvent read(Decoder in) throws IOException {
        return new AssignmentEvent(event.read(in), Binary.array(in, event));
    }
}
