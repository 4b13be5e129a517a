package io.cronoq.schemas;

import java.util.Objects;

import org.apache.avro.Schema;

/** One version of one subject in a schema registry: what {@code GET /subjects/{s}/versions/{v}} returns. */
public record RegisteredSchema(String subject, int version, int id, Schema schema) {

    /** Checks the fields: a subject, a version from 1, a non-negative id and a schema. */
    public RegisteredSchema {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        if (version < 1) {
            throw new IllegalArgumentException("versions start at 1, got " + version);
        }
        if (id < 0) {
            throw new IllegalArgumentException("schema ids are non-negative, got " + id);
        }
    }
}
