package io.cronoq.schemas;

import java.nio.charset.StandardCharsets;

import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;

/**
 * The schema id rule of cronoq's embedded registries: the low 31 bits of the CRC-64-AVRO fingerprint of the
 * schema's full JSON text. Every process computes the same id for the same schema without coordination.
 */
public final class SchemaIds {

    private SchemaIds() {
    }

    /**
     * The id of this schema. The full text is fingerprinted, not Avro's parsing canonical form: that form drops
     * defaults, docs, aliases and logical types, so two versions differing only in a default would share an id
     * and the registry would serve the wrong text for one of them.
     */
    public static int idOf(Schema schema) {
        long fingerprint = SchemaNormalization.fingerprint64(text(schema).getBytes(StandardCharsets.UTF_8));
        return (int) (fingerprint & 0x7fff_ffffL);
    }

    /** The exact text that is registered, stored and fingerprinted for a schema. */
    static String text(Schema schema) {
        return schema.toString();
    }
}
