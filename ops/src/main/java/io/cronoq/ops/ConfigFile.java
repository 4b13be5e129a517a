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
        JsonNode node = tree(file);
        for (String part : path.split("\\.")) {
            node = node.path(part);
        }
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
     * The key names of the table at the dotted {@code path} (e.g. {@code sharing} for {@code [sharing]}
     * and {@code [[sharing.tenants]]}), in file order; empty when absent.
     */
    static List<String> keys(Path file, String path) {
        JsonNode node = tree(file);
        for (String part : path.split("\\.")) {
            node = node.path(part);
        }
        if (node.isMissingNode()) {
            return List.of();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("--config " + file + ": " + path + " must be a table");
        }
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
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
