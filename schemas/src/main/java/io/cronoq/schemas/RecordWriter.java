package io.cronoq.schemas;

import io.cronoq.events.AttemptRef;
import io.cronoq.events.ConcurrencyKey;
import java.io.IOException;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.io.Encoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Avro's writer for a generated class, with one record written field by field: {@link AttemptRef},
 * the element of a worker's list of running attempts, which the scheduler's store writes dozens of
 * times per placement on a busy worker. Its bytes are those Avro's own writer writes (a string, an
 * int, the tenant's union branch and string, an int, the concurrency keys); every other record is written by Avro.
 */
final class RecordWriter<T> extends SpecificDatumWriter<T> {

    RecordWriter(Schema schema, SpecificData model) {
        super(schema, model);
    }

    @Override
    protected void writeRecord(Schema schema, Object datum, Encoder out) throws IOException {
        if (datum instanceof AttemptRef ref) {
            out.writeString(ref.getTaskId());
            out.writeInt(ref.getAttempt());
            String tenant = ref.getTenant();
            if (tenant == null) {
                out.writeIndex(0);
                out.writeNull();
            } else {
                out.writeIndex(1);
                out.writeString(tenant);
            }
            out.writeInt(ref.getGpus());
            writeKeys(ref.getConcurrency(), out);
            return;
        }
        super.writeRecord(schema, datum, out);
    }

    /** An array of {@link ConcurrencyKey} as Avro writes it: one block of items (a key, max's union branch and int), then 0. */
    private static void writeKeys(List<ConcurrencyKey> keys, Encoder out) throws IOException {
        out.writeArrayStart();
        int n = keys == null ? 0 : keys.size();
        out.setItemCount(n);
        for (int i = 0; i < n; i++) {
            out.startItem();
            ConcurrencyKey k = keys.get(i);
            out.writeString(k.getKey());
            if (k.getMax() == null) {
                out.writeIndex(0);
                out.writeNull();
            } else {
                out.writeIndex(1);
                out.writeInt(k.getMax());
            }
        }
        out.writeArrayEnd();
    }
}
