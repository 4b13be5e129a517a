package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.CommonClientConfigs;
import io.cronoq.ops.KafkaOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of the commands that read the journal: where Kafka is, the topic prefix, a config
 * file (the same flags and file as every {@code cronoq} command), and whether to show progress.
 */
final class JournalOptions {

    @Mixin
    KafkaOptions kafka;

    @Option(names = "--progress", negatable = true,
            description = "Show a progress bar on stderr while reading (default: only when stderr is a terminal).")
    Boolean progress;

    /** The scheduler settings these options describe: the config file's, then the flags over them. */
    SchedulerConfig config() {
        return kafka.config();
    }

    /**
     * Reads the journal from {@code from} (the beginning when null) to its end as of now into
     * {@code sink}, drawing a progress bar on {@code err} when asked or when stderr is a terminal.
     */
    JournalReader.Stats read(Instant from, Consumer<JournalEntry> sink, PrintWriter err) {
        SchedulerConfig config = config();
        Map<String, Object> clientSettings = new HashMap<>();
        config.kafkaOverrides().forEach((k, v) -> clientSettings.put(k.toString(), v));
        clientSettings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.get(SchedulerConfig.BOOTSTRAP_SERVERS));
        try (SchemaRegistry registry = SchedulerApp.registry(config)) {
            Topics topics = Topics.withPrefix(config.get(SchedulerConfig.TOPIC_PREFIX), registry);
            try (JournalReader reader = JournalReader.open(clientSettings, topics.journal(), from)) {
                boolean show = progress != null ? progress : ProgressBar.stderrIsTerminal();
                return reader.read(sink, show ? new ProgressBar(err, "journal") : JournalReader.Progress.NONE);
            }
        }
    }
}
