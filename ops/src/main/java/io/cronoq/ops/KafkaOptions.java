package io.cronoq.ops;

import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options every command that talks to Kafka shares (a picocli mixin): where Kafka is, the topic prefix, a config file. */
public final class KafkaOptions {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers (default: from the config file, else localhost:9092).")
    String bootstrap;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX", description = "Prefix of the cronoq topics (default: cronoq.).")
    String topicPrefix;

    @Option(names = "--config", paramLabel = "FILE", description = "A cronoq TOML config file; flags override it.")
    Path configFile;

    /** The settings: the config file's, then these flags over them. */
    public Map<String, Object> settings() {
        Map<String, Object> settings = new HashMap<>(configFile == null ? Map.of() : ConfigFile.read(configFile));
        override(settings, SchedulerConfig.BOOTSTRAP_SERVERS, bootstrap);
        override(settings, SchedulerConfig.TOPIC_PREFIX, topicPrefix);
        return settings;
    }

    /** Sets {@code key} in {@code settings} to a flag's {@code value}, unless the flag is not given (null). */
    public static void override(Map<String, Object> settings, SchedulerConfig.Key key, Object value) {
        if (value != null) {
            settings.put(key.name(), value);
        }
    }

    /**
     * The credentials of the config file's {@code [[auth.tokens]]} (secrets read from the variables their
     * {@code token_env} names); none without a config file or entries, which leaves the scheduler open.
     */
    public Credentials credentials() {
        return configFile == null ? Credentials.none()
                : Credentials.fromEntries(ConfigFile.tables(configFile, "auth.tokens"), System::getenv);
    }

    /**
     * What the config file sets at start: the sharing policy of its {@code [[sharing.tenants]]} and
     * {@code [[sharing.pools]]}, and the limits of its {@code [[limits.keys]]} and {@code [[limits.rates]]},
     * checked and stamped {@code at}; none without a config file or entries.
     *
     * @throws IllegalArgumentException naming the malformed entry and key
     */
    ConfigChanges changes(Instant at) {
        return ConfigChanges.read(configFile, at);
    }

    /** The scheduler configuration these options describe. */
    public SchedulerConfig config() {
        return SchedulerConfig.of(settings());
    }
}
