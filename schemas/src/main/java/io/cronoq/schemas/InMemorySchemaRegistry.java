package io.cronoq.schemas;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.apache.avro.Schema;

/**
 * A schema registry held in this process only, for unit tests and {@code TopologyTestDriver}. It gives the same
 * ids as {@link TopicSchemaRegistry} ({@link SchemaIds#idOf}), so bytes written in a test decode anywhere.
 */
public final class InMemorySchemaRegistry implements SchemaRegistry {

    private final SchemaCatalog catalog = new SchemaCatalog();

    @Override
    public int register(String subject, Schema schema) {
        Objects.requireNonNull(subject, "subject");
        int id = SchemaIds.idOf(schema);
        catalog.add(subject, id, schema);
        return id;
    }

    @Override
    public Optional<Schema> byId(int id) {
        return catalog.byId(id);
    }

    @Override
    public List<String> subjects() {
        return catalog.subjects();
    }

    @Override
    public List<Integer> versions(String subject) {
        return catalog.versions(subject);
    }

    @Override
    public Optional<RegisteredSchema> version(String subject, int version) {
        return catalog.version(subject, version);
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        return catalog.latest(subject);
    }
}
