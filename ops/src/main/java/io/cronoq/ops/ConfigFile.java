package io.cronoq.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads a cronoq TOML config file into flat dotted keys: {@code [cronoq] commit.interval.ms = 20} and
 * {@code cronoq.commit.interval.ms = 20} are the same setting. Tables of arrays (such as
 * {@code [[auth.tokens]]}) are left to the components that own them.
 */
final class ConfigFile {

    private ConfigFile() {}

    static Map<String, Object> read(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("--config " + file + ": no such readable file");
        }
        try {
            JsonNode root = new TomlMapper().readTree(file.toFile());
            Map<String, Object> flat = new LinkedHashMap<>();
            flatten("", root, flat);
            return flat;
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
