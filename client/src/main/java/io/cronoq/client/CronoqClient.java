package io.cronoq.client;

import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
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
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits tasks (and gangs of tasks that start together) to cronoq and awaits their outcomes,
 * with nothing between the caller and Kafka: submissions go to the submissions topic keyed by pool, batched and idempotent with {@code
 * acks=all}, so a future completes only once the submission is durable and a retried send never
 * creates a second task; outcomes are read from the journal by one background reader shared by
 * every awaiting future. Thread-safe; one client per application is plenty. Close it to flush and
 * release its Kafka clients.
 *
 * <pre>{@code
 * try (CronoqClient cronoq = CronoqClient.connect("kafka:9092")) {
 *     Task task = Task.of(payload).pool("inference").label("gpu", "a100").memory("8Gi").build();
 *     cronoq.submit(task).join();
 *     TaskOutcome outcome = cronoq.outcome(task).join();
 * }
 * }</pre>
 *
 * <p>Futures complete on one client thread ({@code cronoq-client-callbacks-N}) unless another
 * executor is given: dependent stages that block hold up the completions queued behind them, so
 * block in the {@code *Async} variants instead.
 */
public final class CronoqClient implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CronoqClient.class);
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    /** Records are stamped by the producer's wall clock; the journal is searched from this much before a send. */
    private static final long SEND_MARGIN_MS = Duration.ofMinutes(1).toMillis();
    private static final int REMEMBERED_SENDS = 100_000;

    private final String clientId;
    private final Topics topics;
    private final Topic<String, SubmissionEvent> submissions;
    private final SchemaRegistry registry;
    private final KafkaProducer<String, SubmissionEvent> producer;
    private final JournalFollower follower;
    private final ExecutorService ownedCallbacks;
    private final Executor callbacks;
    private final Clock clock;
    private final Duration outcomeLookback;
    private final Map<String, Long> sentAt = Collections.synchronizedMap(new LinkedHashMap<>(1024, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > REMEMBERED_SENDS;
        }
    });
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Admin admin;
    private volatile boolean submissionsExist;
    private long lastTopicCheckNanos;
    private boolean lastTopicMissing;

    private CronoqClient(Builder b) {
        this.clientId = b.clientId != null ? b.clientId : "cronoq-client-" + CLIENTS.incrementAndGet();
        this.clock = b.clock;
        this.outcomeLookback = b.outcomeLookback;
        Map<String, Object> common = new HashMap<>(b.kafka);
        common.put("bootstrap.servers", b.bootstrapServers);
        // Checked before anything connects, so a wrong setting fails fast.
        Map<String, Object> producerConfig = KafkaClients.durableProducer(common, clientId);
        Map<String, Object> registryConfig = new HashMap<>(common);
        registryConfig.put(Topics.PREFIX_CONFIG, b.topicPrefix);
        if (b.schemaRegistryUrl != null) {
            registryConfig.put(SchemaRegistries.URL_CONFIG, b.schemaRegistryUrl);
        }
        this.registry = SchemaRegistries.fromConfig(registryConfig);
        this.ownedCallbacks = b.callbacks == null ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, clientId + "-callbacks");
            t.setDaemon(true);
            return t;
        }) : null;
        this.callbacks = b.callbacks != null ? b.callbacks : ownedCallbacks;
        Admin createdAdmin = null;
        try {
            this.topics = Topics.withPrefix(b.topicPrefix, registry);
            this.submissions = topics.submissions();
            // Register now: a registry that cannot be reached or refuses the schema fails here, not on a first submit.
            registry.register(topics.serde(SubmissionEvent.class).subject(submissions.name()),
                    SubmissionEvent.getClassSchema());
            createdAdmin = Admin.create(adminConfig(common, clientId));
            this.producer = new KafkaProducer<>(producerConfig, submissions.keySerde().serializer(),
                    submissions.valueSerde().serializer());
        } catch (RuntimeException e) {
            if (createdAdmin != null) {
                createdAdmin.close(Duration.ZERO);
            }
            closeQuietly(registry);
            if (ownedCallbacks != null) {
                ownedCallbacks.shutdown();
            }
            throw e;
        }
        this.admin = createdAdmin;
        this.follower = new JournalFollower(KafkaClients.logReader(common, clientId + "-journal"), topics.journal(), callbacks,
                b.recentOutcomes, b.recentResultBytes, clientId + "-journal");
        if (submissionsTopicMissing()) {
            log.warn("cronoq client {}: the topic {} does not exist yet; submissions fail until the scheduler creates it",
                    clientId, submissions.name());
        }
        log.info("cronoq client {} submitting to {} on {}", clientId, submissions.name(), b.bootstrapServers);
    }

    /** A client on these bootstrap servers with every default (topics {@code cronoq.*}, the embedded registry). */
    public static CronoqClient connect(String bootstrapServers) {
        return builder(bootstrapServers).build();
    }

    /** Starts configuring a client on these Kafka bootstrap servers. */
    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /**
     * Sends the task. The future completes with the task id once the submission is durably on the
     * submissions topic (acknowledged by all in-sync replicas), or fails with Kafka's error. On a
     * timeout or an error, send the same {@link Task} again: the scheduler keeps one task per id.
     */
    public CompletableFuture<String> submit(Task task) {
        Objects.requireNonNull(task, "task");
        CompletableFuture<String> done = new CompletableFuture<>();
        String id = task.id();
        // The producer stamps the record with this clock; outcome() later searches the journal from it.
        sentAt.put(key(task.pool(), id), System.currentTimeMillis());
        send(task.pool(), new SubmissionEvent(task.event()), done, id);
        return done;
    }

    /**
     * Sends the gang: one record holding every member, so the scheduler accepts all of them or none. The future
     * completes with the gang id once the record is durably on the submissions topic, or fails with Kafka's error;
     * then send the same {@link Gang} again: the scheduler keeps one gang per id. Each member's outcome is
     * {@link #outcome(String, String)} of its task id ({@link Gang#memberIds()}).
     */
    public CompletableFuture<String> submit(Gang gang) {
        Objects.requireNonNull(gang, "gang");
        CompletableFuture<String> done = new CompletableFuture<>();
        long now = System.currentTimeMillis();
        gang.memberIds().forEach(member -> sentAt.put(key(gang.pool(), member), now));
        send(gang.pool(), new SubmissionEvent(gang.event()), done, gang.id());
        return done;
    }

    /** Asks the scheduler to cancel a task in any state; see {@link #cancel(String, String, String)}. */
    public CompletableFuture<Void> cancel(String taskId, String pool) {
        return cancel(taskId, pool, null);
    }

    /**
     * Asks the scheduler to cancel a task, whatever its state: a waiting task leaves its line, a
     * running one has its attempt revoked. The future completes once the request is durably on the
     * topic; the cancellation itself shows in {@link #outcome} as {@code CANCELLED} (or, for a task
     * already finished, not at all: its outcome stands).
     *
     * @throws io.cronoq.schemas.rules.InvalidInputException if the id or the pool breaks the rules
     */
    public CompletableFuture<Void> cancel(String taskId, String pool, String reason) {
        TaskCancelRequested request = new TaskCancelRequested(taskId, pool, reason, clientId, clock.instant());
        throwIfPresent(Rules.check(request));
        CompletableFuture<Void> done = new CompletableFuture<>();
        send(pool, new SubmissionEvent(request), done, null);
        return done;
    }

    /**
     * The outcome of a task submitted by this client ({@link #outcome(String, String)} with the
     * time it was built).
     */
    public CompletableFuture<TaskOutcome> outcome(Task task) {
        Long sent = sentAt.get(key(task.pool(), task.id()));
        long since = sent != null ? sent : Math.min(task.submittedAt().toEpochMilli(), System.currentTimeMillis());
        return follower.await(task.id(), task.pool(), since - SEND_MARGIN_MS);
    }

    /**
     * The outcome of a task: completes when the journal says it SUCCEEDED, FAILED (with no retry
     * left) or was CANCELLED; fails with an {@link io.cronoq.schemas.rules.InvalidInputException}
     * if the scheduler refused the submission. For a task this client sent, the journal is read from
     * the send; for another, from {@link Builder#outcomeLookback} ago (pass the time yourself to
     * {@link #outcome(String, String, Instant)} for an older task). Never completes for a task that
     * was never submitted: bound it with {@link CompletableFuture#orTimeout}.
     */
    public CompletableFuture<TaskOutcome> outcome(String taskId, String pool) {
        Long sent = sentAt.get(key(pool, taskId));
        long since = sent != null ? sent - SEND_MARGIN_MS : System.currentTimeMillis() - outcomeLookback.toMillis();
        return outcome(taskId, pool, Instant.ofEpochMilli(since));
    }

    /** The outcome of a task sent at or after {@code sentAfter} (see {@link #outcome(String, String)}). */
    public CompletableFuture<TaskOutcome> outcome(String taskId, String pool, Instant sentAfter) {
        throwIfPresent(Rules.pool(pool));
        throwIfPresent(Rules.taskId(taskId));
        Objects.requireNonNull(sentAfter, "sentAfter");
        return follower.await(taskId, pool, sentAfter.toEpochMilli());
    }

    /** The topic this client submits to. */
    public String submissionsTopic() {
        return submissions.name();
    }

    /** Sends everything batched so far and waits until it is acknowledged (or failed). */
    public void flush() {
        producer.flush();
    }

    /** Flushes what is batched, then stops the journal reader and the Kafka clients. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        follower.close();
        producer.close(Duration.ofSeconds(30));
        admin.close(Duration.ofSeconds(5));
        if (ownedCallbacks != null) {
            ownedCallbacks.shutdown();
            try {
                if (!ownedCallbacks.awaitTermination(30, TimeUnit.SECONDS)) {
                    log.warn("cronoq client {}: callbacks still running after 30 s", clientId);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly(registry);
        log.info("cronoq client {} closed", clientId);
    }

    private <T> void send(String pool, SubmissionEvent event, CompletableFuture<T> done, T value) {
        if (closed.get()) {
            done.completeExceptionally(new IllegalStateException("the cronoq client " + clientId + " is closed"));
            return;
        }
        if (!submissionsExist && submissionsTopicMissing()) {
            done.completeExceptionally(new IllegalStateException("the topic '" + submissions.name() + "' does not "
                    + "exist: start the scheduler, which creates its topics (or create them all with one partition "
                    + "count). The client does not let Kafka auto-create it: it would get the broker's default "
                    + "partition count and the scheduler would refuse to start."));
            return;
        }
        try {
            producer.send(new ProducerRecord<>(submissions.name(), pool, event), (metadata, error) -> {
                // Off the producer's I/O thread: dependent stages must not stall every other send.
                if (error == null) {
                    callbacks.execute(() -> done.complete(value));
                } else {
                    callbacks.execute(() -> done.completeExceptionally(error));
                }
            });
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
    }

    /**
     * Whether the submissions topic is known not to exist. Sending to a missing topic would let the
     * broker auto-create it with its default partition count, breaking the co-partitioning the
     * scheduler needs. Asked at most once a second until the topic is seen; once seen, never again.
     */
    private synchronized boolean submissionsTopicMissing() {
        if (submissionsExist) {
            return false;
        }
        long now = System.nanoTime();
        if (lastTopicCheckNanos != 0 && now - lastTopicCheckNanos < TimeUnit.SECONDS.toNanos(1)) {
            return lastTopicMissing;
        }
        lastTopicCheckNanos = now;
        try {
            admin.describeTopics(List.of(submissions.name())).allTopicNames().get(10, TimeUnit.SECONDS);
            submissionsExist = true;
            lastTopicMissing = false;
        } catch (ExecutionException e) {
            lastTopicMissing = e.getCause() instanceof UnknownTopicOrPartitionException;
            if (e.getCause() instanceof TopicAuthorizationException) {
                // A producer-only credential may not describe topics; then the send itself tells.
                submissionsExist = true;
            }
        } catch (java.util.concurrent.TimeoutException e) {
            lastTopicMissing = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lastTopicMissing = false;
        }
        return lastTopicMissing;
    }

    private static Map<String, Object> adminConfig(Map<String, Object> common, String clientId) {
        Map<String, Object> config = new HashMap<>();
        common.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                config.put(k, v);
            }
        });
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        return config;
    }

    private static String key(String pool, String taskId) {
        return pool + '\u0000' + taskId;
    }

    private static void throwIfPresent(Optional<Violation> violation) {
        if (violation.isPresent()) {
            throw violation.get().toException();
        }
    }

    private static void closeQuietly(SchemaRegistry registry) {
        try {
            registry.close();
        } catch (RuntimeException e) {
            log.warn("Closing the schema registry failed", e);
        }
    }

    /** Settings of a {@link CronoqClient}; every one has a default but the bootstrap servers. */
    public static final class Builder {
        private final String bootstrapServers;
        private final Map<String, Object> kafka = new HashMap<>();
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private String schemaRegistryUrl;
        private String clientId;
        private Clock clock = Clock.systemUTC();
        private Duration outcomeLookback = Duration.ofDays(1);
        private int recentOutcomes = 100_000;
        private long recentResultBytes = 64L << 20;
        private Executor callbacks;

        private Builder(String bootstrapServers) {
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("bootstrap servers are empty; give host:port[,host:port...] of the "
                        + "Kafka cluster cronoq runs on");
            }
            this.bootstrapServers = bootstrapServers;
        }

        /** The prefix of cronoq's topic names, as the scheduler was given ({@code cronoq.} by default). */
        public Builder topicPrefix(String prefix) {
            this.topicPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** A Confluent-compatible schema registry; unset, the embedded one in {@code <prefix>_schemas} is used. */
        public Builder schemaRegistryUrl(String url) {
            this.schemaRegistryUrl = url;
            return this;
        }

        /**
         * A Kafka client setting for the producer, the journal reader and the embedded registry (security,
         * timeouts, tuning such as {@code linger.ms}). {@code acks} and {@code enable.idempotence} cannot be
         * weakened.
         */
        public Builder kafkaProperty(String name, Object value) {
            kafka.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Several Kafka client settings, see {@link #kafkaProperty}. */
        public Builder kafkaProperties(Map<String, ?> properties) {
            properties.forEach(this::kafkaProperty);
            return this;
        }

        /** The Kafka {@code client.id} and the name of the client's threads. */
        public Builder clientId(String id) {
            this.clientId = Objects.requireNonNull(id, "id");
            return this;
        }

        /** The clock that stamps cancel requests. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How far back the journal is read for a task this client did not send (default 1 day). */
        public Builder outcomeLookback(Duration lookback) {
            this.outcomeLookback = Objects.requireNonNull(lookback, "lookback");
            return this;
        }

        /**
         * How many recent outcomes (default 100 000) and how many bytes of their results (default 64 MiB) the
         * journal reader remembers for outcomes asked for after the task ended; past that it rereads.
         */
        public Builder rememberOutcomes(int count, long resultBytes) {
            if (count < 0 || resultBytes < 0) {
                throw new IllegalArgumentException("rememberOutcomes takes counts of 0 or more");
            }
            this.recentOutcomes = count;
            this.recentResultBytes = resultBytes;
            return this;
        }

        /** Where futures are completed (default: one thread of the client's own). */
        public Builder callbackExecutor(Executor executor) {
            this.callbacks = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Connects: opens the schema registry, registers the submission schema and creates the producer. */
        public CronoqClient build() {
            return new CronoqClient(this);
        }
    }
}
