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
 * {@link WorkerSettings}), what runs its attempts, and what it publishes as its resources. Made and checked by a
 * {@link Builder}.
 *
 * @param bootstrap           Kafka's {@code bootstrap.servers}
 * @param topicPrefix         the prefix of cronoq's topic names
 * @param kafka               the extra Kafka client settings (and {@code schema.registry.url}), as given
 * @param heartbeatInterval   how often each worker says it is alive
 * @param registrationTimeout how long starting a worker waits for the answer to its registration
 * @param startReportDelay    how long each attempt's start report is held back (0: sent at once); see
 *                            {@link Builder#startReportDelay}
 * @param credential          what signs each registration, or {@code null}
 * @param settings            who the worker is and how it paces itself; null in a template, whose workers are made
 *                            by {@link #forWorker}
 * @param handler             what runs each attempt
 * @param executor            the application's executor for attempts, or {@code null} for the worker's own pool of
 *                            slot threads
 * @param workDir             the directory whose free disk is published
 * @param packages            the installed packages published, name → version
 * @param overrides           what is published instead of what is detected
 * @param detector            how resources are detected
 * @param clock               the clock that stamps events
 */
public record WorkerOptions(String bootstrap, String topicPrefix, Map<String, Object> kafka, Duration heartbeatInterval,
                            Duration registrationTimeout, Duration startReportDelay, WorkerCredential credential,
                            WorkerSettings settings,
                            TaskHandler handler, Executor executor, Path workDir, Map<String, String> packages,
                            ResourceOverrides overrides, ResourceDetector detector, Clock clock) {

    /** Immutable whichever way it is made: the maps are copied. */
    public WorkerOptions {
        kafka = Collections.unmodifiableMap(new HashMap<>(kafka));
        packages = Collections.unmodifiableMap(new LinkedHashMap<>(packages));
    }

    /**
     * These options for another worker of the same process: its own id, pool, labels, slots, handler and executor
     * (an embedded group) and the address it advertises, the connection, pacing, credential and resources
     * unchanged. Validated as at build.
     */
    WorkerOptions forWorker(String id, String pool, Map<String, String> labels, int slots, String address,
                            TaskHandler runBy, Executor runOn) {
        WorkerSettings other = new WorkerSettings(id, pool, labels, slots, heartbeatInterval, registrationTimeout,
                startReportDelay, credential, address);
        return new WorkerOptions(bootstrap, topicPrefix, kafka, heartbeatInterval, registrationTimeout,
                startReportDelay, credential, other, requireHandler(runBy), runOn, workDir, packages, overrides,
                detector, clock);
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
        /** The address advertised to gang peers; null: the host's name. */
        String address;
        TaskHandler handler;
        Executor executor;
        private Duration heartbeatInterval = Duration.ofSeconds(3);
        private Duration registrationTimeout = Duration.ofSeconds(30);
        private Duration startReportDelay = WorkerSettings.DEFAULT_START_REPORT_DELAY;
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

        /**
         * The address the worker advertises to the members of the gangs it runs (for embedded executors: every
         * group's worker), a host name or IP, optionally {@code :port}; default the host's name. Checked at build.
         */
        public B address(String hostOrHostPort) {
            this.address = hostOrHostPort;
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

        /**
         * How long each attempt's start report is held back (default 20 ms; {@link Duration#ZERO} sends it at once;
         * not negative). An attempt that succeeds or fails within it is reported by its outcome alone — the
         * scheduler takes an outcome of an attempt it has not heard start as its start and end — so a task that
         * ends in a few milliseconds costs the scheduler one input instead of two. An attempt still running when
         * the delay ends reports its start then, with the time it really started, and its outcome later. Keep it
         * small: the scheduler counts an attempt's lease from the start it hears, and until it hears one, from the
         * assignment, so a delay near a task's timeout would let the lease of an attempt that runs well run out.
         */
        public B startReportDelay(Duration delay) {
            this.startReportDelay = Objects.requireNonNull(delay, "delay");
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
         * The options as set, checked once: the id, pool, labels, slots and address with cronoq's input rules, the
         * heartbeat interval positive, the start report delay not negative, a handler given.
         *
         * @throws io.cronoq.schemas.rules.InvalidInputException naming the option that breaks a rule
         * @throws IllegalStateException                        without a handler
         * @throws IllegalArgumentException                     for a heartbeat interval that is not positive or a
         *                                                      negative start report delay
         */
        final WorkerOptions options() {
            requireHandler(handler);
            WorkerSettings settings = new WorkerSettings(id != null ? id : WorkerIds.defaultId(), pool, labels, slots,
                    heartbeatInterval, registrationTimeout, startReportDelay, credential, advertised());
            return build(settings);
        }

        /** The address given, or the host's name (null when it has none). */
        final String advertised() {
            return address != null ? address : WorkerAddress.local();
        }

        /**
         * The shared options without a worker's identity, for the workers made later with
         * {@link WorkerOptions#forWorker}, which checks each of them.
         */
        final WorkerOptions template() {
            return build(null);
        }

        private WorkerOptions build(WorkerSettings settings) {
            return new WorkerOptions(bootstrap, topicPrefix, kafka,
                    heartbeatInterval, registrationTimeout, startReportDelay, credential, settings, handler, executor,
                    workDir,
                    packages, overrides,
                    detector != null ? detector : ResourceDetector.system(), clock);
        }
    }
}
