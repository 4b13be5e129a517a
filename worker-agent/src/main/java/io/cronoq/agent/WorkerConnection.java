package io.cronoq.agent;

import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka side of a process's workers, shared by all of them: one producer (behind one publisher), one
 * assignments consumer (one reading thread that hands each record to the worker whose id is its key), one admin
 * client for the workers' committed offsets, one timer thread (heartbeats and held start reports). Each worker
 * attaches as a {@link Member} with its own id; the connection is open while its opener or any member holds it and
 * closes when the last one lets go.
 */
final class WorkerConnection {

    private static final Logger log = LoggerFactory.getLogger(WorkerConnection.class);
    private static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final SchemaRegistry registry;
    private final KafkaEventPublisher publisher;
    private final AssignmentReader reader;
    private final Admin admin;
    /** Heartbeats and held start reports: short tasks that only publish. */
    private final ScheduledExecutorService timers;
    /** The opener and the attached members; guarded by this. */
    private int holders = 1;

    private WorkerConnection(String name, SchemaRegistry registry, KafkaEventPublisher publisher,
                             AssignmentReader reader, Admin admin) {
        this.name = name;
        this.registry = registry;
        this.publisher = publisher;
        this.reader = reader;
        this.admin = admin;
        ScheduledThreadPoolExecutor timerThread = new ScheduledThreadPoolExecutor(1,
                Threads.named("cronoq-timers-" + name));
        timerThread.setRemoveOnCancelPolicy(true); // most held start reports are cancelled: their attempt ended first
        this.timers = timerThread;
    }

    /**
     * Connects with the options' Kafka settings and starts reading; the caller holds the connection until it
     * {@link #release()}s it.
     *
     * @param name whose connection this is (a worker id, an application's name), for client ids and thread names
     */
    static WorkerConnection open(WorkerOptions options, String name) {
        Map<String, Object> common = new HashMap<>(options.kafka());
        common.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap());
        Map<String, Object> registryConfig = new HashMap<>(common);
        registryConfig.put(Topics.PREFIX_CONFIG, options.topicPrefix());
        SchemaRegistry registry = SchemaRegistries.fromConfig(registryConfig);
        Topics topics = Topics.withPrefix(options.topicPrefix(), registry);
        String clientId = "cronoq-worker-" + name;

        Map<String, Object> producerProps = KafkaClients.durableProducer(common, clientId);
        producerProps.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // Retry inside the client for as long as it takes (order kept by idempotence); the publisher retries
        // what still fails, so an outage delays events and never drops them.
        producerProps.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        producerProps.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps, new StringSerializer(),
                new ByteArraySerializer());

        // Each worker's offsets are kept in its own group (cronoq-worker-<id>) through the admin client; the
        // consumer itself belongs to none. A worker never seen before starts at the end. Keys and values are read
        // as bytes: the reader decodes only the values of the records keyed by a worker of this process.
        Map<String, Object> consumerProps = KafkaClients.logReader(common, clientId);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        Admin admin = Admin.create(KafkaClients.admin(common, clientId));

        AssignmentReader reader = new AssignmentReader(consumer, topics.assignments().valueSerde().deserializer(),
                CommittedOffsets.of(admin), topics.assignments().name(), name);
        Threads.named("cronoq-assignments-" + name).newThread(reader).start();
        return new WorkerConnection(name, registry, new KafkaEventPublisher(producer, topics, name), reader, admin);
    }

    /** Attaches a worker; it holds the connection until its member is {@linkplain Member#release released}. */
    synchronized Member attach(String workerId) {
        if (holders == 0) {
            throw new IllegalStateException("the connection of " + name + " is closed");
        }
        holders++;
        return new Member(workerId);
    }

    /** The connection's timer thread, for short tasks that only publish (a held start report). */
    ScheduledExecutorService timers() {
        return timers;
    }

    /** Lets go of the connection; the last holder to let go closes it. */
    void release() {
        synchronized (this) {
            if (--holders > 0) {
                return;
            }
        }
        timers.shutdownNow();
        reader.stop(RELEASE_TIMEOUT);
        publisher.close(RELEASE_TIMEOUT);
        admin.close(Duration.ofSeconds(5));
        try {
            registry.close();
        } catch (Exception e) {
            log.warn("Closing the schema registry client of {} failed", name, e);
        }
    }

    /** One worker on the connection: its reading, its heartbeats, and its events, flushed when it lets go. */
    final class Member implements EventSink {
        private final String workerId;
        /** Its events not yet acknowledged by the broker. */
        private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();
        private volatile ScheduledFuture<?> heartbeat;

        private Member(String workerId) {
            this.workerId = workerId;
        }

        @Override
        public CompletableFuture<Void> publish(SpecificRecord event) {
            CompletableFuture<Void> sent = publisher.publish(event);
            pending.add(sent);
            sent.whenComplete((ok, error) -> pending.remove(sent));
            return sent;
        }

        /** Reads the worker's assignments into {@code core}, which registers once its position is fixed. */
        void startReading(WorkerCore core) {
            reader.join(workerId, core::onEvent, core::register);
        }

        void startHeartbeats(WorkerCore core, Duration interval) {
            // With a fixed delay, not a fixed rate: a process paused (SIGSTOP, a long GC, a frozen VM) sends one
            // heartbeat when it resumes, not one per interval it missed back to back, each of them fenced.
            heartbeat = timers.scheduleWithFixedDelay(() -> {
                try {
                    core.heartbeat();
                } catch (RuntimeException e) {
                    log.warn("Heartbeat of worker {} failed; the next one follows", workerId, e);
                }
            }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Stops the worker's heartbeats and reading (committing what it handled). */
        void stopReading() {
            ScheduledFuture<?> beating = heartbeat;
            if (beating != null) {
                beating.cancel(true);
            }
            reader.leave(workerId, RELEASE_TIMEOUT);
        }

        /** Writes the worker's queued events, waiting at most {@code timeout}, then lets go of the connection. */
        @Override
        public void close(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            try {
                for (CompletableFuture<Void> event : List.copyOf(pending)) {
                    awaitWritten(event, deadline);
                }
            } catch (TimeoutException e) {
                log.warn("Closing with {} event(s) of worker {} not yet written to the broker; the scheduler will "
                        + "not see them", pending.size(), workerId);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                release();
            }
        }

        private static void awaitWritten(CompletableFuture<Void> event, long deadline)
                throws TimeoutException, InterruptedException {
            try {
                event.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                // An event that can never be written was logged by the publisher.
            }
        }
    }
}
