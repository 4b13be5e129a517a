package io.cronoq.schemas.codec;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.SubmissionEvent;
import java.io.IOException;
import java.util.function.Function;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.specific.SpecificData;

/**
 * A record of an input topic that is one union of events: the submissions topic and the completions
 * topic, read once per task each. A task submission and the attempt reports are read and written by
 * hand; the rarer branches (a cancellation, a sharing policy, a limit, a gang, progress) by Avro.
 *
 * @param <T> the topic's record class
 */
public final class InputEventCodec<T> implements RecordCodec<T> {

    /** The fingerprint of the SubmissionEvent schema; a changed schema fails a test until it is pinned again. */
    static final long SUBMISSION_PINNED = 0x9268181883802ca6L;
    /** The fingerprint of the CompletionEvent schema; a changed schema fails a test until it is pinned again. */
    static final long COMPLETION_PINNED = 0x6511d31ab85bdf6bL;

    private final Class<T> type;
    private final long pinned;
    private final Function<T, Object> event;
    private final Function<Object, T> record;
    private final RecordUnion union;

    private InputEventCodec(Class<T> type, long pinned, Function<T, Object> event, Function<Object, T> record) {
        this.type = type;
        this.pinned = pinned;
        this.event = event;
        this.record = record;
        this.union = new RecordUnion(SpecificData.getForClass(type).getSchema(type).getField("event").schema(), type);
    }

    /** The codec of the submissions topic's records. */
    static InputEventCodec<SubmissionEvent> submissions() {
        return new InputEventCodec<>(SubmissionEvent.class, SUBMISSION_PINNED, SubmissionEvent::getEvent, SubmissionEvent::new);
    }

    /** The codec of the completions topic's records. */
    static InputEventCodec<CompletionEvent> completions() {
        return new InputEventCodec<>(CompletionEvent.class, COMPLETION_PINNED, CompletionEvent::getEvent, CompletionEvent::new);
    }

    @Override
    public Class<T> type() {
        return type;
    }

    @Override
    public long pinned() {
        return pinned;
    }

    @Override
    public void write(T value, Encoder out) throws IOException {
        union.write(event.apply(value), out);
    }

    @Override
    public T read(Decoder in) throws IOException {
        return record.apply(union.read(in));
    }
}
