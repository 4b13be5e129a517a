package io.cronoq.ops.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Option;

/**
 * The options of the commands that read the journal: where Kafka is, the topic prefix, a config
 * file (the same flags and file as every {@code cronoq} command), and whether to show progress.
 */
final class JournalOptions {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (default: from the config file, else localhost:9092).")
    String bootstrap;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX", description = "Prefix of the cronoq topics (default: cronoq.).")
    String topicPrefix;

    @Option(names = "--config", paramLabel = "FILE", description = "A cronoq TOML config file; flags override it.")
    Path configFile;

    @Option(names = "--progress", negatable = true,
            description = "Show a progress bar on stderr while reading (default: only when stderr is a terminal).")
    Boolean progress;

    /** The scheduler settings these options describe: the config file's, then the flags over them. */
    SchedulerConfig config() {
        Map<String, Object> settings = new HashMap<>(configFile == null ? Map.of() : readConfigFile(configFile));
        if (bootstrap != null) {
            settings.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrap);
        }
        if (topicPrefix != null) {
            settings.put(SchedulerConfig.TOPIC_PREFIX.name(), topicPrefix);
        }
        return SchedulerConfig.of(settings);
    }

    /**
     * Reads the journal from {@code from} (the beginning when null) to its end as of now into
     * {@code sink}, drawing a progress bar on {@code err} when asked or when stderr is a terminal.
     */
    JournalReader.Stats read(Instant from, Consumer<JournalEntry> sink, PrintWriter err) {
        SchedulerConfig config = config();
        Map<String, Object> kafka = new HashMap<>();
        config.kafkaOverrides().forEach((k, v) -> kafka.put(k.toString(), v));
        kafka.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.get(SchedulerConfig.BOOTSTRAP_SERVERS));
        try (SchemaRegistry registry = SchedulerApp.registry(config)) {
            Topics topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
            try (JournalReader reader = JournalReader.open(kafka, topics.journal(), from)) {
                boolean show = progress != null ? progress : ProgressBar.stderrIsTerminal();
                return reader.read(sink, show ? new ProgressBar(err, "journal") : JournalReader.Progress.NONE);
            }
        }
    }

    /** A TOML file as flat dotted keys ({@code [cronoq] topic.prefix} is {@code cronoq.topic.prefix}). */
    private static Map<String, Object> readConfigFile(Path file) {
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("--config " + file + ": no such readable file");
        }
        try {
            Map<String, Object> flat = new LinkedHashMap<>();
            flatten("", new TomlMapper().readTree(file.toFile()), flat);
            return flat;
        } catch (IOException e) {
            throw new IllegalArgumentException("--config " + file + " is not valid TOML: " + e.getMessage(), e);
        }
    }

    private static void flatten(String prefix, JsonNode node, Map<String, Object> out) {
        if (node.isObject()) {
            for (var field : node.properties()) {
                flatten(prefix.isEmpty() ? field.getKey() : prefix + "." + field.getKey(), field.getValue(), out);
            }
        } else if (node.isValueNode()) {
            out.put(prefix, node.asText());
        }
    }
}
