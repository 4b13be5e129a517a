package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.schemas.codec.Codecs;
import io.cronoq.schemas.codec.ListDatumReader;
import io.cronoq.schemas.codec.RecordCodec;
import io.cronoq.schemas.codec.SameRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Checks a record the scheduler wrote against Avro itself, when a hand-written codec writes its class: Avro's
 * writer and the codec write the same bytes, and Avro's reader and the codec read the same record back. The
 * driver applies it to every journal record and assignment it reads and to every task and worker record left
 * in the stores, so every scenario of the topology tests is a recorded journal the codecs are held to.
 */
final class CodecAgreement {

    private CodecAgreement() {
    }

    /** The record, after checking it; records without a codec pass unchecked. */
    static <T> T checked(T record) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) record.getClass();
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        Codecs.forType(type, schema).ifPresent(codec -> agree(codec, schema, record));
        return record;
    }

    private static <T> void agree(RecordCodec<T> codec, Schema schema, T record) {
        try {
            byte[] avro = write(out -> new SpecificDatumWriter<T>(schema, SpecificData.getForClass(codec.type()))
                    .write(record, out));
            assertThat(write(out -> codec.write(record, out)))
                    .as("the %s codec writes Avro's bytes for %s", codec.type().getSimpleName(), record)
                    .isEqualTo(avro);
            T byAvro = new ListDatumReader<T>(schema, schema, ListDatumReader.readingModel(codec.type()))
                    .read(null, decoder(avro));
            T byCodec = codec.read(decoder(avro));
            SameRecord.same(byCodec, byAvro, "the " + codec.type().getSimpleName() + " its codec read");
            assertThat(byCodec).as("the %s its codec read, against the one written", codec.type().getSimpleName())
                    .isEqualTo(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Writing {
        void to(BinaryEncoder out) throws IOException;
    }

    private static byte[] write(Writing writing) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder out = EncoderFactory.get().binaryEncoder(bytes, null);
        writing.to(out);
        out.flush();
        return bytes.toByteArray();
    }

    private static BinaryDecoder decoder(byte[] bytes) {
        return DecoderFactory.get().binaryDecoder(bytes, null);
    }
}
