package io.cronoq.ops;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Reads a cronoq TOML config file into flat dotted keys: {@code [cronoq] commit.interval.ms = 20} and
 * {@code cronoq.commit.interval.ms = 20} are the same setting. Arrays of tables (such as
 * {@code [[auth.tokens]]}, {@code [[sharing.tenants]]}, {@code [[limits.rates]]}) are not flattened;
 * {@link #tables} reads them as a list of entries.
 */
final class ConfigFile {

    private static final TomlMapper MAPPER = new TomlMapper();

    private ConfigFile() {}

    static Map<String, Object> read(Path file) {
        Map<String, Object> flat = new LinkedHashMap<>();
        flatten("", tree(file), flat);
        return flat;
    }

    /**
     * The entries of the array of tables at the dotted {@code path} (e.g. {@code auth.tokens} for
     * {@code [[auth.tokens]]}), each as its keys to strings, numbers, booleans and lists; empty when absent.
     */
    static List<Map<String, Object>> tables(Path file, String path) {
        JsonNode node = node(file, path);
        if (node.isMissingNode()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("--config " + file + ": " + path + " must be an array of tables, "
                    + "written [[" + path + "]]");
        }
        List<Map<String, Object>> entries = new ArrayList<>();
        for (JsonNode entry : node) {
            if (!entry.isObject()) {
                throw new IllegalArgumentException("--config " + file + ": each entry of " + path + " must be a table");
            }
            entries.add(MAPPER.convertValue(entry, new TypeReference<Map<String, Object>>() {}));
        }
        return entries;
    }

    /**
     * The entries of each array of tables of the table {@code section} (e.g. {@code [[limits.keys]]} and
     * {@code [[limits.rates]]} for {@code limits}), in the order {@code arrays} names them; a key of the
     * section that is none of them is refused, naming the ones it may hold.
     */
    static List<List<Map<String, Object>>> section(Path file, String section, List<String> arrays) {
        JsonNode node = node(file, section);
        if (!node.isMissingNode() && !node.isObject()) {
            throw new IllegalArgumentException("--config " + file + ": " + section + " must be a table");
        }
        node.fieldNames().forEachRemaining(key -> {
            if (!arrays.contains(key)) {
                StringJoiner known = new StringJoiner(" and ");
                arrays.forEach(array -> known.add("[[" + section + "." + array + "]]"));
                throw new IllegalArgumentException("--config " + file + ": [" + section + "] has an unknown key '" + key
                        + "'; known: " + known);
            }
        });
        List<List<Map<String, Object>>> entries = new ArrayList<>();
        arrays.forEach(array -> entries.add(tables(file, section + "." + array)));
        return entries;
    }

    /** The node at the dotted {@code path} of the file, missing when absent. */
    private static JsonNode node(Path file, String path) {
        JsonNode node = tree(file);
        for (String part : path.split("\\.")) {
            node = node.path(part);
        }
        return node;
    }

    private static JsonNode tree(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("--config " + file + ": no such readable file");
        }
        try {
            return MAPPER.readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("--config " + file + " is not valid TOML: " + e.getMessage(), e);
        }
    }

    private static void flatten(String prefix, JsonNode node, Map<String, Object> out) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field ->
                    flatten(prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey(), field.getValue(), out));
        } else if (node.isValueNode()) {
            out.put(prefix, node.asText());
        }
    }
}
