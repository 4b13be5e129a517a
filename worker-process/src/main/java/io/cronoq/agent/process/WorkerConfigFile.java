package io.cronoq.agent.process;

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
 * Reads the worker's settings from a cronoq TOML file, as flag names: the {@code [worker]} table
 * ({@code pool = "inference"}, {@code slots = 4}, {@code labels = { gpu = "a100" }},
 * {@code memory-limit = "8Gi"} …) and the shared {@code cronoq.bootstrap.servers} and
 * {@code cronoq.topic.prefix}, so one file serves the scheduler and its workers. A malformed file or
 * value is an {@link IllegalArgumentException} naming the setting.
 */
final class WorkerConfigFile {

    static final List<String> KNOWN = List.of("bootstrap", "topic-prefix", "id", "pool", "labels", "slots", "address", "cpu",
            "memory", "disk", "gpus", "memory-limit", "timeout", "work-dir", "heartbeat-interval", "token-env",
            "credential", "pass-env", "run-as");

    private WorkerConfigFile() {}

    /** Flag name (e.g. {@code --pool}) → value, in file order. */
    static Map<String, Object> read(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("--config " + file + ": no such readable file");
        }
        JsonNode root;
        try {
            root = new TomlMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new IllegalArgumentException("--config " + file + " is not valid TOML: " + e.getMessage());
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        JsonNode cronoq = root.path("cronoq");
        text(cronoq.path("bootstrap").path("servers"), root.path("cronoq.bootstrap.servers"))
                .ifPresent(v -> settings.put("--bootstrap", v));
        text(cronoq.path("topic").path("prefix"), root.path("cronoq.topic.prefix"))
                .ifPresent(v -> settings.put("--topic-prefix", v));
        root.path("worker").fields().forEachRemaining(field -> {
            String name = field.getKey().equals("labels") ? "--label" : "--" + field.getKey();
            JsonNode value = field.getValue();
            settings.put(name, value.isObject() || value.isArray() ? value : value.isNumber() ? value.numberValue() : value.asText());
        });
        return settings;
    }

    /** {@code pass-env = ["HF_HOME", "AWS_*"]} (or one string) as a list of values. */
    static List<String> stringList(String flag, Object value) {
        List<String> values = new ArrayList<>();
        if (value instanceof JsonNode array && array.isArray()) {
            array.forEach(v -> values.add(v.asText()));
            return values;
        }
        if (value instanceof JsonNode node && !node.isContainerNode()) {
            values.add(node.asText());
            return values;
        }
        if (value instanceof String text) {
            values.add(text);
            return values;
        }
        throw new IllegalArgumentException("--config: " + flag.substring(2) + " must be a list of strings, e.g. "
                + flag.substring(2) + " = [\"HF_HOME\"]");
    }

    /** {@code labels = { gpu = "a100" }} as {@code --label} values. */
    static List<String> labelList(Object value) {
        List<String> labels = new ArrayList<>();
        if (value instanceof JsonNode table && table.isObject()) {
            table.fields().forEachRemaining(f -> labels.add(f.getKey() + "=" + f.getValue().asText()));
            return labels;
        }
        throw new IllegalArgumentException("--config: labels must be a table, e.g. labels = { gpu = \"a100\" }");
    }

    static Integer integer(String flag, Object value) {
        if (value instanceof Number n) {
            return n.intValue();
        }
        try {
            return Integer.valueOf(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--config: " + flag.substring(2) + " must be a whole number, got '" + value + "'");
        }
    }

    private static java.util.Optional<String> text(JsonNode nested, JsonNode dotted) {
        JsonNode node = nested.isValueNode() ? nested : dotted;
        return node.isValueNode() ? java.util.Optional.of(node.asText()) : java.util.Optional.empty();
    }
}
