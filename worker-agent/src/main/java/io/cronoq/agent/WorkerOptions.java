package io.cronoq.agent;

import io.cronoq.schemas.Topics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Everything a worker is started with, immutable once built: where Kafka is, who the worker is (its validated
 * {@link WorkerSettings}), what runs its attempts, and what it publishes as its resources.
 */
public final class WorkerOptions {

    private final String bootstrap;
    private final String topicPrefix;
    private final Map<String, Object> kafka;
    private final Duration heartbeatInterval;
    private final Duration registrationTimeout;
    private final WorkerCredential credential;
    /** Null in a template, whose workers are made by {@link #forWorker}. */
    private final WorkerSettings settings;
    private final TaskHandler handler;
    private final Executor executor;
    private final Path workDir;
    private final Map<String, String> packages;
    private final ResourceOverrides overrides;
    private final ResourceDetector detector;
    private final Clock clock;

    private WorkerOptions(Builder<?> b, WorkerSettings settings) {
        this.bootstrap = b.bootstrap;
        this.topicPrefix = b.topicPrefix;
        this.kafka = Collections.unmodifiableMap(new HashMap<>(b.kafka));
        this.heartbeatInterval = b.heartbeatInterval;
        this.registrationTimeout = b.registrationTimeout;
        this.credential = b.credential;
        this.settings = settings;
        this.handler = b.handler;
        this.executor = b.executor;
        this.workDir = b.workDir;
        this.packages = Collections.unmodifiableMap(new LinkedHashMap<>(b.packages));
        this.overrides = b.overrides;
        this.detector = b.detector != null ? b.detector : ResourceDetector.system();
        this.clock = b.clock;
    }

    private WorkerOptions(WorkerOptions base, WorkerSettings settings, TaskHandler handler, Executor executor) {
        this.bootstrap = base.bootstrap;
        this.topicPrefix = base.topicPrefix;
        this.kafka = base.kafka;
        this.heartbeatInterval = base.heartbeatInterval;
        this.registrationTimeout = base.registrationTimeout;
        this.credential = base.credential;
        this.settings = settings;
        this.handler = handler;
        this.executor = executor;
        this.workDir = base.workDir;
        this.packages = base.packages;
        this.overrides = base.overrides;
        this.detector = base.detector;
        this.clock = base.clock;
    }

    /**
     * These options for another worker of the same process: its own id, pool, labels, slots, handler and executor
     * (an embedded group), the connection, pacing, credential and resources unchanged. Validated as at build.
     */
    WorkerOptions forWorker(String id, String pool, Map<String, String> labels, int slots, TaskHandler runBy,
                            Executor runOn) {
        WorkerSettings other = new WorkerSettings(id, pool, labels, slots, heartbeatInterval, registrationTimeout,
                credential);
        return new WorkerOptions(this, other, requireHandler(runBy), runOn);
    }

    /** Kafka's {@code bootstrap.servers}. */
    public String bootstrap() {
        return bootstrap;
    }

    /** The prefix of cronoq's topic names. */
    public String topicPrefix() {
        return topicPrefix;
    }

    /** The extra Kafka client settings (and {@code schema.registry.url}), as given. */
    public Map<String, Object> kafka() {
        return kafka;
    }

    /** Who the worker is and how it paces itself. */
    WorkerSettings settings() {
        return settings;
    }

    /** What runs each attempt. */
    public TaskHandler handler() {
        return handler;
    }

    /** The application's executor for attempts, or {@code null} for the worker's own pool of slot threads. */
    public Executor executor() {
        return executor;
    }

    /** The directory whose free disk is published. */
    public Path workDir() {
        return workDir;
    }

    /** The installed packages published, name → version. */
    public Map<String, String> packages() {
        return packages;
    }

    /** What is published instead of what is detected. */
    public ResourceOverrides overrides() {
        return overrides;
    }

    /** How resources are detected. */
    public ResourceDetector detector() {
        return detector;
    }

    /** The clock that stamps events. */
    public Clock clock() {
        return clock;
    }

    private static TaskHandler requireHandler(TaskHandler handler) {
        if (handler == null) {
            throw new IllegalStateException("a worker needs a handler: .handler(ctx -> ...)");
        }
        return handler;
    }

    /**
     * The settings every kind of worker shares (connection, pacing, resources' detector, clock, credential,
     * handler), set by a builder of type {@code B}; its subclasses add what only they have.
     *
     * @param <B> the concrete builder, returned by every setter
     */
    public abstract static class Builder<B extends Builder<B>> {
        private String bootstrap = "localhost:9092";
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private final Map<String, Object> kafka = new HashMap<>();
        String id;
        String pool;
        final Map<String, String> labels = new LinkedHashMap<>();
        int slots = Runtime.getRuntime().availableProcessors();
        TaskHandler handler;
        Executor executor;
        private Duration heartbeatInterval = Duration.ofSeconds(3);
        private Duration registrationTimeout = Duration.ofSeconds(30);
        Path workDir = Path.of("").toAbsolutePath();
        final Map<String, String> packages = new LinkedHashMap<>();
        ResourceOverrides overrides = ResourceOverrides.NONE;
        private ResourceDetector detector;
        private Clock clock = Clock.systemUTC();
        private WorkerCredential credential;

        Builder() {
        }

        @SuppressWarnings("unchecked")
        final B self() {
            return (B) this;
        }

        /** Kafka's {@code bootstrap.servers} (default {@code localhost:9092}). */
        public B bootstrap(String servers) {
            this.bootstrap = Objects.requireNonNull(servers, "servers");
            return self();
        }

        /** The prefix of cronoq's topic names (default {@code cronoq.}); the scheduler's must be the same. */
        public B topicPrefix(String prefix) {
            this.topicPrefix = Objects.requireNonNull(prefix, "prefix");
            return self();
        }

        /** Any Kafka client setting (security, SASL...) or {@code schema.registry.url} for an external registry. */
        public B kafkaProperty(String key, Object value) {
            kafka.put(key, value);
            return self();
        }

        /** What runs each attempt (for embedded executors: of every group not given its own). */
        public B handler(TaskHandler taskHandler) {
            this.handler = taskHandler;
            return self();
        }

        /** How often each worker says it is alive (default 3 s). */
        public B heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return self();
        }

        /** How long starting a worker waits for the scheduler's answer to its registration (default 30 s). */
        public B registrationTimeout(Duration timeout) {
            this.registrationTimeout = timeout;
            return self();
        }

        /** How resources are detected (default: {@link ResourceDetector#system()}). */
        public B resourceDetector(ResourceDetector resourceDetector) {
            this.detector = resourceDetector;
            return self();
        }

        /**
         * The credential that signs each registration (HMAC-SHA256, see {@code RegistrationSignature}); a
         * scheduler with {@code [[auth.tokens]]} configured refuses unsigned registrations.
         */
        public B credential(String name, String secret) {
            return credential(WorkerCredential.of(name, secret));
        }

        B credential(WorkerCredential workerCredential) {
            this.credential = workerCredential;
            return self();
        }

        /** The clock that stamps events (default: UTC system clock). */
        public B clock(Clock eventClock) {
            this.clock = Objects.requireNonNull(eventClock, "eventClock");
            return self();
        }

        /**
         * The options as set, checked once: the id, pool, labels and slots with cronoq's input rules, the
         * heartbeat interval positive, a handler given.
         *
         * @throws io.cronoq.schemas.rules.InvalidInputException naming the option that breaks a rule
         * @throws IllegalStateException                        without a handler
         * @throws IllegalArgumentException                     for a heartbeat interval that is not positive
         */
        final WorkerOptions options() {
            requireHandler(handler);
            WorkerSettings settings = new WorkerSettings(id != null ? id : WorkerIds.defaultId(), pool, labels, slots,
                    heartbeatInterval, registrationTimeout, credential);
            return new WorkerOptions(this, settings);
        }

        /**
         * The shared options without a worker's identity, for the workers made later with
         * {@link WorkerOptions#forWorker}, which checks each of them.
         */
        final WorkerOptions template() {
            return new WorkerOptions(this, null);
        }
    }
}
