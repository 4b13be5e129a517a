package io.cronoq.schemas.codec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/**
 * A hand-written Avro binary writer and reader of one generated record class. It promises the bytes Avro's own
 * writer writes for the schema it was written for, and the record Avro's own reader reads from them; it is used
 * only while the class's schema has the fingerprint it pins ({@link #pinned()}), so a changed schema falls back
 * to Avro until the codec follows it, and data written with any other schema is read by Avro.
 */
public interface RecordCodec<T> {

    /** The generated class this codec writes and reads. */
    Class<T> type();

    /** The fingerprint ({@link #fingerprint}) of the schema this codec was written for. */
    long pinned();

    /** Writes the record's body (no header) as Avro binary of the pinned schema. */
    void write(T value, Encoder out) throws IOException;

    /** Reads one record's body written with the pinned schema. */
    T read(Decoder in) throws IOException;

    /** CRC-64-AVRO of the schema's full JSON text, nested schemas included: any change to it changes this. */
    static long fingerprint(Schema schema) {
        return SchemaNormalization.fingerprint64(schema.toString().getBytes(StandardCharsets.UTF_8));
    }
}
