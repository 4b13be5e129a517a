package io.cronoq.schemas;

import java.util.List;
import java.util.Optional;

import org.apache.avro.Schema;

/**
 * A Confluent-compatible schema registry: registers writer schemas under subjects, resolves ids to schemas, and
 * lists what the Confluent REST paths {@code /schemas/ids/{id}}, {@code /subjects},
 * {@code /subjects/{s}/versions} and {@code /subjects/{s}/versions/{v|latest}} serve. Implementations are
 * thread-safe; failures to reach the registry are {@link SchemaRegistryException}s.
 */
public interface SchemaRegistry extends AutoCloseable {

    /** Registers the schema under the subject (a no-op if it is there already) and returns its id; the same schema always gets the same id. */
    int register(String subject, Schema schema);

    /** The schema with this id, or empty if the registry does not know it. */
    Optional<Schema> byId(int id);

    /** Every subject, sorted. */
    List<String> subjects();

    /** The versions of a subject, ascending from 1; empty for an unknown subject. */
    List<Integer> versions(String subject);

    /** One version of a subject, or empty if the subject or version does not exist. */
    Optional<RegisteredSchema> version(String subject, int version);

    /** The latest version of a subject, or empty for an unknown subject. */
    Optional<RegisteredSchema> latest(String subject);

    /** Releases clients and threads; the default holds none. */
    @Override
    default void close() {
    }
}
