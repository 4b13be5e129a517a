package io.cronoq.schemas;

import java.time.Duration;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the schema registry a configuration asks for: an external Confluent-compatible one when
 * {@code schema.registry.url} is set, otherwise the embedded topic-backed one on {@code bootstrap.servers}.
 */
public final class SchemaRegistries {

    /** Base URL(s) of an external Confluent-compatible registry, comma-separated; unset = embedded registry. */
    public static final String URL_CONFIG = "schema.registry.url";
    /** {@code user:password} for an external registry's HTTP basic authentication (Confluent's key). */
    public static final String BASIC_AUTH_USER_INFO_CONFIG = "basic.auth.user.info";
    /** How long a registry call may take before it fails, in ms. */
    public static final String TIMEOUT_MS_CONFIG = "cronoq.schema.registry.timeout.ms";
    /** Default of {@link #TIMEOUT_MS_CONFIG}. */
    public static final long DEFAULT_TIMEOUT_MS = 30_000;

    private static final Logger log = LoggerFactory.getLogger(SchemaRegistries.class);

    private SchemaRegistries() {
    }

    /**
     * The registry of this configuration. The embedded one keeps its schemas in
     * {@code <cronoq.topic.prefix>_schemas} (default {@code cronoq._schemas}) and takes any Kafka client
     * settings (security etc.) from the same map. The caller closes it.
     */
    public static SchemaRegistry fromConfig(Map<String, ?> config) {
        Duration timeout = Duration.ofMillis(longValue(config, TIMEOUT_MS_CONFIG, DEFAULT_TIMEOUT_MS));
        Object url = config.get(URL_CONFIG);
        if (url != null && !url.toString().isBlank()) {
            Object userInfo = config.get(BASIC_AUTH_USER_INFO_CONFIG);
            log.info("Using the schema registry at {}", url);
            return new HttpSchemaRegistry(url.toString(), timeout, userInfo == null ? null : userInfo.toString());
        }
        if (config.get("bootstrap.servers") == null) {
            throw new IllegalArgumentException("No schema registry configured: set " + URL_CONFIG
                    + " for an external registry, or bootstrap.servers for the embedded one");
        }
        Object prefix = config.get(Topics.PREFIX_CONFIG);
        String topic = Topics.schemasTopic(prefix == null ? Topics.DEFAULT_PREFIX : prefix.toString());
        return TopicSchemaRegistry.create(config, topic, timeout);
    }

    private static long longValue(Map<String, ?> config, String key, long defaultValue) {
        Object value = config.get(key);
        if (value == null) {
            return defaultValue;
        }
        try {
            return value instanceof Number number ? number.longValue() : Long.parseLong(value.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number of milliseconds, got '" + value + "'", e);
        }
    }
}
