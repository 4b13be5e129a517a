package io.cronoq.schemas.codec;

import java.io.IOException;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;

/** How one schema inside a codec's record is written and read: by hand, or handed to Avro. */
interface Part<T> {

    void write(T value, Encoder out) throws IOException;

    T read(Decoder in) throws IOException;
}
