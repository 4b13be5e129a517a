package io.cronoq.ops;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.app.TopicSetup;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.TopicSpec;
import io.cronoq.schemas.Topics;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code cronoq topics}: manages the cronoq topics. */
@Command(name = "topics", mixinStandardHelpOptions = true, description = "Manage the cronoq topics.",
        subcommands = TopicsCommand.Create.class)
final class TopicsCommand {

    /** {@code cronoq topics create}: creates the missing topics (idempotent) and checks co-partitioning. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = "Create the cronoq topics that are missing (idempotent).")
    static final class Create implements Callable<Integer> {

        @Mixin
        KafkaOptions kafka;

        @Option(names = "--partitions", paramLabel = "N", description = "Partitions of each keyed topic (default: 6).")
        Integer partitions;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            Map<String, Object> settings = kafka.settings();
            KafkaOptions.override(settings, SchedulerConfig.PARTITIONS, partitions);
            SchedulerConfig config = SchedulerConfig.of(settings);
            try (SchemaRegistry registry = SchedulerApp.registry(config)) {
                Topics topics = SchedulerApp.topics(config, registry);
                TopicSetup.ensure(config, topics);
                for (TopicSpec topic : topics.all(config.getInt(SchedulerConfig.PARTITIONS))) {
                    spec.commandLine().getOut().println(topic.name());
                }
            }
            return 0;
        }
    }
}
