package io.cronoq.schemas;

import io.cronoq.events.AttemptRef;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.io.Encoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Avro's writer for a generated class, with one record written field by field: {@link AttemptRef},
 * the element of a worker's list of running attempts, which the scheduler's store writes dozens of
 * times per placement on a busy worker. Its bytes are those Avro's own writer writes (a string, an
 * int, the tenant's union branch and string, an int); every other record is written by Avro.
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
            return;
        }
        super.writeRecord(schema, datum, out);
    }
}
