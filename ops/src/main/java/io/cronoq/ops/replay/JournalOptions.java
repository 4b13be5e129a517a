package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.ops.KafkaOptions;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import java.time.Instant;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The scheduler settings these options describe: the config file's, then the flags over them. */
    SchedulerConfig config() {
        return kafka.config();
    }

    /**
     * Reads the journal from {@code from} (the beginning when null) to its end as of now into
     * {@code sink}, drawing a progress bar on the command's stderr when asked or when stderr is a terminal.
     */
    JournalReader.Stats read(Instant from, Consumer<JournalEntry> sink) {
        SchedulerConfig config = config();
        try (SchemaRegistry registry = SchedulerApp.registry(config);
             JournalReader reader = JournalReader.open(config.kafkaClientSettings(),
                     SchedulerApp.topics(config, registry).journal(), from)) {
            boolean show = progress != null ? progress : ProgressBar.stderrIsTerminal();
            return reader.read(sink, show ? new ProgressBar(command.commandLine().getErr(), "journal")
                    : JournalReader.Progress.NONE);
        }
    }
}
