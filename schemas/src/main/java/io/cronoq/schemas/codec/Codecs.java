package io.cronoq.schemas.codec;

import java.util.List;
import java.util.Optional;
import org.apache.avro.Schema;

/**
 * The hand-written codecs, and which one serves a class: a codec serves only while its class's schema has the
 * fingerprint the codec pins, so a schema changed without its codec is written and read by Avro.
 */
public final class Codecs {

    private static final List<RecordCodec<?>> ALL =
            List.of(new TaskRecordCodec(), new JournalEntryCodec(), new AssignmentEventCodec(),
                    new WorkerRecordCodec(), InputEventCodec.submissions(), InputEventCodec.completions());

    private Codecs() {
    }

    /** Every hand-written codec, whether or not its schema still matches. */
    public static List<RecordCodec<?>> all() {
        return ALL;
    }

    /** The codec for a class whose current schema is the one the codec pins, if there is one. */
    @SuppressWarnings("unchecked")
    public static <T> Optional<RecordCodec<T>> forType(Class<T> type, Schema schema) {
        for (RecordCodec<?> codec : ALL) {
            if (codec.type() == type && codec.pinned() == RecordCodec.fingerprint(schema)) {
                return Optional.of((RecordCodec<T>) codec);
            }
        }
        return Optional.empty();
    }
}
