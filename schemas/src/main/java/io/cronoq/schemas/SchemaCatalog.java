package io.cronoq.schemas;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import org.apache.avro.Schema;

/**
 * The bookkeeping shared by the embedded registries: id to schema, and per subject its schema ids in order of
 * first appearance (version n = the n-th). Thread-safe; lookups by id take no lock.
 */
final class SchemaCatalog {

    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final Map<Integer, String> textsById = new ConcurrentHashMap<>();
    private final Map<String, List<Integer>> idsBySubject = new TreeMap<>();

    /**
     * Records that the subject uses the schema with this id. Returns false if it did already.
     *
     * @throws SchemaRegistryException if the id is already bound to a different schema
     */
    synchronized boolean add(String subject, int id, Schema schema) {
        String text = SchemaIds.text(schema);
        String known = textsById.putIfAbsent(id, text);
        if (known != null && !known.equals(text)) {
            throw new SchemaRegistryException("Schema id collision: id " + id + " is already bound to a different "
                    + "schema than the one registered under subject '" + subject + "' (" + schema.getFullName()
                    + "). Change the new schema's doc text by a character to change its fingerprint, and report it.");
        }
        schemasById.putIfAbsent(id, schema);
        List<Integer> ids = idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        if (ids.contains(id)) {
            return false;
        }
        ids.add(id);
        return true;
    }

    /** Whether the subject already has the schema with this id. */
    synchronized boolean contains(String subject, int id) {
        List<Integer> ids = idsBySubject.get(subject);
        return ids != null && ids.contains(id);
    }

    /** The schema bound to a different text under this id, if any: a collision waiting to happen. */
    Optional<String> conflictingText(int id, Schema schema) {
        String known = textsById.get(id);
        return known == null || known.equals(SchemaIds.text(schema)) ? Optional.empty() : Optional.of(known);
    }

    Optional<Schema> byId(int id) {
        return Optional.ofNullable(schemasById.get(id));
    }

    synchronized List<String> subjects() {
        return List.copyOf(idsBySubject.keySet());
    }

    synchronized List<Integer> versions(String subject) {
        List<Integer> ids = idsBySubject.getOrDefault(subject, List.of());
        return IntStream.rangeClosed(1, ids.size()).boxed().toList();
    }

    synchronized Optional<RegisteredSchema> version(String subject, int version) {
        List<Integer> ids = idsBySubject.getOrDefault(subject, List.of());
        if (version < 1 || version > ids.size()) {
            return Optional.empty();
        }
        int id = ids.get(version - 1);
        return Optional.of(new RegisteredSchema(subject, version, id, schemasById.get(id)));
    }

    synchronized Optional<RegisteredSchema> latest(String subject) {
        List<Integer> ids = idsBySubject.getOrDefault(subject, List.of());
        return ids.isEmpty() ? Optional.empty() : version(subject, ids.size());
    }
}
