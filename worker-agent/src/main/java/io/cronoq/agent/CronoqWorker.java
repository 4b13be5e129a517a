package io.cronoq.agent;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cronoq worker: registers in a pool with its labels, slots and resources, runs up to {@code slots} assigned
 * attempts at once with a {@link TaskHandler}, reports them, heartbeats, drains on request, and obeys fencing.
 * Build one with {@link #builder()}:
 *
 * <pre>{@code
 * CronoqWorker worker = CronoqWorker.builder()
 *         .bootstrap("kafka:9092").pool("inference").label("gpu", "a100").slots(4)
 *         .handler(ctx -> infer(ctx.payload(), ctx.group()))
 *         .build()
 *         .start();
 * ...
 * worker.drain().join();   // finish what runs, take nothing new, leave
 * }</pre>
 *
 * It survives broker outages: Kafka's clients reconnect, events that could not be written are retried until they
 * are, and its loops log and carry on. Thread-safe.
 */
public final class CronoqWorker implements AutoCloseable {

    /** Where a worker is in its life. */
    public enum State {
        /** Built, not started. */
        CREATED,
        /** Registration sent; waiting for the scheduler's answer (its generation). */
        REGISTERING,
        /** Registered: takes and runs attempts. */
        ACTIVE,
        /** Takes nothing new; finishes what runs, then leaves. */
        DRAINING,
        /** Drained and reported that it left. */
        LEFT,
        /** Stopped at once ({@link #stopNow}, {@link #close()}); running attempts were reported failed. */
        STOPPED,
        /** Its id was registered again by another process; it stopped taking work. */
        FENCED,
        /** The scheduler refused its registration. */
        REJECTED;

        /** Whether the worker is done for good. */
        public boolean terminal() {
            return this == LEFT || this == STOPPED || this == FENCED || this == REJECTED;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(CronoqWorker.class);

    private final Builder config;
    private final WorkerSettings settings;
    private final CompletableFuture<State> closed = new CompletableFuture<>();
    private volatile WorkerCore core;
    private volatile Clients clients;

    private CronoqWorker(Builder config, WorkerSettings settings) {
        this.config = config;
        this.settings = settings;
    }

    /** A builder with the defaults: {@code localhost:9092}, prefix {@code cronoq.}, one slot per core. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Detects resources, connects, registers, and waits (at most the registration timeout) for the scheduler's
     * answer. Returns the started worker: {@link State#ACTIVE} when the scheduler answered in time, else
     * {@link State#REGISTERING} (it keeps waiting, e.g. for a scheduler that is starting).
     *
     * @throws RegistrationRejectedException when the scheduler refused the registration (the worker is stopped)
     * @throws IllegalStateException         when started twice
     */
    public CronoqWorker start() {
        synchronized (this) {
            if (core != null) {
                throw new IllegalStateException("worker " + settings.id() + " was started already");
            }
            WorkerResources resources = config.detector.detect(config.workDir, config.packages, config.overrides);
            log.info("Worker {} publishes resources: {} cpu, {} bytes of memory, {} bytes of disk, {} GPU(s), "
                    + "packages {}", settings.id(), io.cronoq.schemas.rules.Quantities.formatCpu(resources.getCpuMillis()),
                    resources.getMemoryBytes(), resources.getDiskBytes(), resources.getGpus().size(),
                    resources.getPackages());
            clients = Clients.connect(config, settings);
            core = new WorkerCore(settings, config.handler, clients.attemptExecutor(config), clients.publisher,
                    config.clock, resources);
            core.termination().whenComplete((state, error) -> clients.releaseAsync(core, closed));
            clients.startReading(core);
            clients.startHeartbeats(core, settings.heartbeatInterval());
        }
        try {
            core.activation().get(settings.registrationTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn("Worker {} has no answer from the scheduler after {}; it keeps waiting (is the scheduler "
                    + "running on the same topics, prefix '{}'?)", settings.id(), settings.registrationTimeout(),
                    config.topicPrefix);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RegistrationRejectedException rejected) {
                closed.join();
                throw rejected;
            }
            throw new IllegalStateException("worker " + settings.id() + " failed to start", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopNow("interrupted while starting");
        }
        return this;
    }

    /**
     * Drains: reports {@code WorkerDraining} (the scheduler assigns nothing new), finishes the running attempts,
     * then reports {@code WorkerLeft}. The future completes with the final state once the worker has left and
     * released its clients.
     */
    public CompletableFuture<State> drain() {
        WorkerCore c = core;
        if (c == null) {
            throw new IllegalStateException("worker " + settings.id() + " was not started");
        }
        c.drain();
        return closed;
    }

    /**
     * Stops at once: cancels the running attempts (interrupting their threads), reports them as failed and
     * retryable, reports that it left, and releases its clients.
     */
    public void stopNow(String reason) {
        WorkerCore c = core;
        if (c != null) {
            c.stopNow(reason);
        }
    }

    /** Stops at once unless already finished ({@link #stopNow}), and waits up to 30 s until the clients are released. */
    @Override
    public void close() {
        WorkerCore c = core;
        if (c == null) {
            return;
        }
        c.stopNow("closed");
        awaitTermination(Duration.ofSeconds(30));
    }

    /** Waits until the worker has finished and released its clients; returns whether it did in time. */
    public boolean awaitTermination(Duration timeout) {
        try {
            closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Completes with the final state once the worker has finished and released its clients. */
    public CompletableFuture<State> terminated() {
        return closed;
    }

    /** Simulates a crash: stops without a word to the scheduler (no failure reports, no leave). For tests. */
    void halt() {
        WorkerCore c = core;
        if (c != null) {
            c.halt("halted");
            awaitTermination(Duration.ofSeconds(30));
        }
    }

    /** The worker's id. */
    public String id() {
        return settings.id();
    }

    /** The worker's pool. */
    public String pool() {
        return settings.pool();
    }

    /** The labels the worker registers with. */
    public Map<String, String> labels() {
        return settings.labels();
    }

    /** The slots the worker registers with: at most this many attempts run at once. */
    public int slots() {
        return settings.slots();
    }

    /** Where the worker is in its life. */
    public State state() {
        WorkerCore c = core;
        return c == null ? State.CREATED : c.state();
    }

    /** The generation the scheduler gave the current registration; 0 before the first answer. */
    public long generation() {
        WorkerCore c = core;
        return c == null ? 0 : c.generation();
    }

    /** The labels of the worker's group as the scheduler answered them; empty before the first answer. */
    public Map<String, String> group() {
        WorkerCore c = core;
        return c == null ? Map.of() : c.group();
    }

    /** The attempts running now. */
    public List<AttemptId> runningAttempts() {
        WorkerCore c = core;
        return c == null ? List.of() : c.running();
    }

    /** Why the worker finished (drained, stopped, fenced, rejected), once it has. */
    public Optional<String> endReason() {
        WorkerCore c = core;
        return c == null ? Optional.empty() : c.endReason();
    }

    @Override
    public String toString() {
        return "CronoqWorker{" + settings.id() + " in " + settings.pool() + " " + settings.labels() + ", "
                + state() + ", generation " + generation() + "}";
    }

    /** The Kafka side of a started worker: clients, threads, and their orderly release. */
    private static final class Clients {
        private final String id;
        private final SchemaRegistry registry;
        private final Topics topics;
        private final KafkaEventPublisher publisher;
        private final KafkaConsumer<String, AssignmentEvent> consumer;
        private final ScheduledExecutorService heartbeats;
        private ExecutorService ownExecutor;
        private AssignmentReader reader;

        private Clients(String id, SchemaRegistry registry, Topics topics, KafkaEventPublisher publisher,
                        KafkaConsumer<String, AssignmentEvent> consumer) {
            this.id = id;
            this.registry = registry;
            this.topics = topics;
            this.publisher = publisher;
            this.consumer = consumer;
            this.heartbeats = new ScheduledThreadPoolExecutor(1, Threads.named("cronoq-heartbeat-" + id));
        }

        static Clients connect(Builder config, WorkerSettings settings) {
            Map<String, Object> common = new HashMap<>(config.kafka);
            common.put("bootstrap.servers", config.bootstrap);
            Map<String, Object> registryConfig = new HashMap<>(common);
            registryConfig.put(Topics.PREFIX_CONFIG, config.topicPrefix);
            SchemaRegistry registry = SchemaRegistries.fromConfig(registryConfig);
            Topics topics = Topics.withPrefix(config.topicPrefix, registry);
            common.remove(SchemaRegistries.URL_CONFIG);
            common.remove(SchemaRegistries.BASIC_AUTH_USER_INFO_CONFIG);

            Map<String, Object> producerProps = new HashMap<>(common);
            producerProps.put(ProducerConfig.ACKS_CONFIG, "all");
            producerProps.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
            // Retry inside the client for as long as it takes (order kept by idempotence); the publisher retries
            // what still fails, so an outage delays events and never drops them.
            producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
            producerProps.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
            producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, "cronoq-worker-" + settings.id());
            KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps, new StringSerializer(),
                    new ByteArraySerializer());

            Map<String, Object> consumerProps = new HashMap<>(common);
            consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(settings.id()));
            consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            // A worker never seen before starts at the end: nothing before its first registration is for it.
            consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, "cronoq-worker-" + settings.id());
            KafkaConsumer<String, AssignmentEvent> consumer = new KafkaConsumer<>(consumerProps,
                    topics.assignments().keySerde().deserializer(), topics.assignments().valueSerde().deserializer());
            KafkaEventPublisher publisher = new KafkaEventPublisher(producer, topics, settings.pool(), settings.id());
            return new Clients(settings.id(), registry, topics, publisher, consumer);
        }

        Executor attemptExecutor(Builder config) {
            if (config.executor != null) {
                return config.executor;
            }
            ThreadPoolExecutor pool = new ThreadPoolExecutor(config.slots, config.slots, 60, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), Threads.numbered("cronoq-attempt-" + id));
            pool.allowCoreThreadTimeOut(true);
            ownExecutor = pool;
            return pool;
        }

        void startReading(WorkerCore core) {
            reader = new AssignmentReader(consumer, topics.assignments().name(), id, core::onEvent, core::register);
            Threads.named("cronoq-assignments-" + id).newThread(reader).start();
        }

        void startHeartbeats(WorkerCore core, Duration interval) {
            // With a fixed delay, not a fixed rate: a process paused (SIGSTOP, a long GC, a frozen VM) sends one
            // heartbeat when it resumes, not one per interval it missed back to back, each of them fenced.
            heartbeats.scheduleWithFixedDelay(() -> {
                try {
                    core.heartbeat();
                } catch (RuntimeException e) {
                    log.warn("Heartbeat of worker {} failed; the next one follows", id, e);
                }
            }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Releases everything on a thread of its own: termination may be decided on the reading thread itself. */
        void releaseAsync(WorkerCore core, CompletableFuture<State> closed) {
            Thread thread = Threads.named("cronoq-release-" + id).newThread(() -> {
                try {
                    release(core.state());
                } finally {
                    closed.complete(core.state());
                }
            });
            thread.start();
        }

        private void release(State end) {
            heartbeats.shutdownNow();
            if (reader != null) {
                reader.stop(Duration.ofSeconds(10));
            }
            if (ownExecutor != null) {
                // A drained worker has nothing running; anything else was cancelled and is interrupted again.
                ownExecutor.shutdownNow();
            }
            publisher.close(Duration.ofSeconds(10));
            try {
                registry.close();
            } catch (Exception e) {
                log.warn("Closing the schema registry client of worker {} failed", id, e);
            }
            log.info("Worker {} finished ({})", id, end);
        }
    }

    /** The consumer group of a worker's offsets on its assignments partition. */
    public static String groupId(String workerId) {
        return "cronoq-worker-" + workerId;
    }

    /** Builds a {@link CronoqWorker}; every setting has a default except the pool and the handler. */
    public static final class Builder {
        private String bootstrap = "localhost:9092";
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private final Map<String, Object> kafka = new HashMap<>();
        private String id;
        private String pool;
        private final Map<String, String> labels = new LinkedHashMap<>();
        private int slots = java.lang.Runtime.getRuntime().availableProcessors();
        private TaskHandler handler;
        private Executor executor;
        private Duration heartbeatInterval = Duration.ofSeconds(3);
        private Duration registrationTimeout = Duration.ofSeconds(30);
        private Path workDir = Path.of("").toAbsolutePath();
        private final Map<String, String> packages = new LinkedHashMap<>();
        private ResourceOverrides overrides = ResourceOverrides.NONE;
        private ResourceDetector detector;
        private Clock clock = Clock.systemUTC();
        private WorkerCredential credential;

        private Builder() {
        }

        /** Kafka's {@code bootstrap.servers}. */
        public Builder bootstrap(String servers) {
            this.bootstrap = Objects.requireNonNull(servers, "servers");
            return this;
        }

        /** The prefix of cronoq's topic names (default {@code cronoq.}); the scheduler's must be the same. */
        public Builder topicPrefix(String prefix) {
            this.topicPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** Any Kafka client setting (security, SASL...) or {@code schema.registry.url} for an external registry. */
        public Builder kafkaProperty(String key, Object value) {
            kafka.put(key, value);
            return this;
        }

        /** The worker id (default: host name and process id); each worker process needs its own. */
        public Builder id(String workerId) {
            this.id = workerId;
            return this;
        }

        /** The pool to work for (required). */
        public Builder pool(String poolName) {
            this.pool = poolName;
            return this;
        }

        /** Adds a label; the workers of a pool with the same labels form a group. */
        public Builder label(String name, String value) {
            labels.put(name, value);
            return this;
        }

        /** Adds labels. */
        public Builder labels(Map<String, String> more) {
            labels.putAll(more);
            return this;
        }

        /** How many attempts run at once (default: the number of cores). */
        public Builder slots(int n) {
            this.slots = n;
            return this;
        }

        /** What runs each attempt (required). */
        public Builder handler(TaskHandler taskHandler) {
            this.handler = taskHandler;
            return this;
        }

        /**
         * The application's executor to run attempts on (embedded mode); by default the worker runs them on its own
         * pool of {@code slots} threads. The worker never submits more than the scheduler assigned it.
         */
        public Builder executor(Executor applicationExecutor) {
            this.executor = applicationExecutor;
            return this;
        }

        /** How often the worker says it is alive (default 3 s). */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return this;
        }

        /** How long {@link #start()} waits for the scheduler's answer (default 30 s). */
        public Builder registrationTimeout(Duration timeout) {
            this.registrationTimeout = timeout;
            return this;
        }

        /** The directory whose free disk is published (default: the current directory). */
        public Builder workDir(Path dir) {
            this.workDir = dir;
            return this;
        }

        /** Publishes an installed package and its version (e.g. {@code torch}, {@code 2.1.0}). */
        public Builder installedPackage(String name, String version) {
            packages.put(name, version);
            return this;
        }

        /** Publishes installed packages, name → version. */
        public Builder installedPackages(Map<String, String> nameToVersion) {
            packages.putAll(nameToVersion);
            return this;
        }

        /** Publishes this many thousandths of a core instead of the detected cores. */
        public Builder cpuMillis(long millis) {
            overrides = overrides.withCpuMillis(millis);
            return this;
        }

        /** Publishes this memory instead of the detected memory. */
        public Builder memoryBytes(long bytes) {
            overrides = overrides.withMemoryBytes(bytes);
            return this;
        }

        /** Publishes this free disk instead of the work directory's. */
        public Builder diskBytes(long bytes) {
            overrides = overrides.withDiskBytes(bytes);
            return this;
        }

        /**
         * Publishes {@code count} GPUs instead of the detected ones (0 hides them); missing ones are published with
         * {@code memoryBytesEach} of memory.
         */
        public Builder gpus(int count, long memoryBytesEach) {
            overrides = overrides.withGpus(count, memoryBytesEach);
            return this;
        }

        /** All overrides at once. */
        public Builder resourceOverrides(ResourceOverrides all) {
            this.overrides = Objects.requireNonNull(all, "all");
            return this;
        }

        /** How resources are detected (default: {@link ResourceDetector#system()}). */
        public Builder resourceDetector(ResourceDetector resourceDetector) {
            this.detector = resourceDetector;
            return this;
        }

        /**
         * The credential that signs the registration (HMAC-SHA256, see {@code RegistrationSignature}); a
         * scheduler with {@code [[auth.tokens]]} configured refuses unsigned registrations.
         */
        public Builder credential(String name, String secret) {
            return credential(WorkerCredential.of(name, secret));
        }

        Builder credential(WorkerCredential workerCredential) {
            this.credential = workerCredential;
            return this;
        }

        /** The clock that stamps events (default: UTC system clock). */
        public Builder clock(Clock eventClock) {
            this.clock = Objects.requireNonNull(eventClock, "eventClock");
            return this;
        }

        /**
         * Checks the settings with cronoq's input rules and builds the worker (not started).
         *
         * @throws io.cronoq.schemas.rules.InvalidInputException naming the field that breaks a rule
         * @throws IllegalStateException                        without a handler
         */
        public CronoqWorker build() {
            if (handler == null) {
                throw new IllegalStateException("a worker needs a handler: .handler(ctx -> ...)");
            }
            if (detector == null) {
                detector = ResourceDetector.system();
            }
            WorkerSettings settings = new WorkerSettings(id != null ? id : WorkerIds.defaultId(), pool, labels, slots,
                    heartbeatInterval, registrationTimeout, credential);
            Builder frozen = copy();
            return new CronoqWorker(frozen, settings);
        }

        private Builder copy() {
            Builder b = new Builder();
            b.bootstrap = bootstrap;
            b.topicPrefix = topicPrefix;
            b.kafka.putAll(kafka);
            b.id = id;
            b.pool = pool;
            b.labels.putAll(labels);
            b.slots = slots;
            b.handler = handler;
            b.executor = executor;
            b.heartbeatInterval = heartbeatInterval;
            b.registrationTimeout = registrationTimeout;
            b.workDir = workDir;
            b.packages.putAll(packages);
            b.overrides = overrides;
            b.detector = detector;
            b.clock = clock;
            b.credential = credential;
            return b;
        }
    }
}
