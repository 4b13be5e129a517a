package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificDatumReader;

/**
 * The journal and assignments records the scheduler forwards, which are Avro bodies (no wire header), read back
 * by Avro's own reader: every byte must belong to the record.
 */
final class Bodies {

    private Bodies() {
    }

    static JournalEntry journal(Object body) {
        return read(JournalEntry.class, body);
    }

    static AssignmentEvent assignments(Object body) {
        return read(AssignmentEvent.class, body);
    }

    private static <T> T read(Class<T> type, Object body) {
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder((byte[]) body, null);
            T value = new SpecificDatumReader<>(type).read(null, in);
            assertThat(in.isEnd()).as("every byte of the %s read", type.getSimpleName()).isTrue();
            return value;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
