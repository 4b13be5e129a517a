package io.cronoq.scheduler.testing;

import static org.awaitility.Awaitility.await;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KafkaStreams.State;

/**
 * A scheduler app running in this JVM for a test: its topics created and its streams {@code RUNNING} when
 * {@link Builder#start()} returns, under its own topic prefix, application id and state directory unless the
 * test names them; closing it stops the app and deletes the state directory it made.
 *
 * <pre>{@code
 * try (RunningScheduler scheduler = RunningScheduler.on(broker).partitions(2).neverEvict().start();
 *      Inputs inputs = scheduler.inputs()) { ... }
 * }</pre>
 */
public final class RunningScheduler implements AutoCloseable {

    /** How long {@link #awaitRunning()} waits for the streams to be {@code RUNNING}. */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** A worker heartbeat timeout no test outlives: simulated workers that never heartbeat are not evicted. */
    public static final Duration NEVER_EVICT = Duration.ofDays(1);

    private static final Set<State> FAILED = Set.of(State.PENDING_ERROR, State.ERROR, State.PENDING_SHUTDOWN,
            State.NOT_RUNNING);

    private final KafkaBroker broker;
    private final SchedulerApp app;
    private final Path ownedStateDir;

    private RunningScheduler(KafkaBroker broker, SchedulerConfig config, Credentials credentials, Path ownedStateDir) {
        this.broker = broker;
        this.ownedStateDir = ownedStateDir;
        this.app = SchedulerApp.start(config, credentials);
    }

    /** A scheduler on the test broker, named after {@code scheduler} unless told otherwise. */
    public static Builder on(KafkaBroker broker) {
        return new Builder(broker, null);
    }

    /**
     * A scheduler on another broker (e.g. a {@code LocalKafka} a test started itself); {@link #inputs()} and
     * {@link #journal()} need the test broker and are not available on it.
     */
    public static Builder on(String bootstrapServers) {
        return new Builder(null, bootstrapServers);
    }

    /** The running app: its streams, topics, configuration and credentials. */
    public SchedulerApp app() {
        return app;
    }

    /** The scheduler's topics (with its schema registry). */
    public Topics topics() {
        return app.topics();
    }

    /** The topic prefix, ending in a dot. */
    public String prefix() {
        return app.topics().prefix();
    }

    /** The {@code bootstrap.servers} the scheduler reads and writes. */
    public String bootstrap() {
        return app.config().get(SchedulerConfig.BOOTSTRAP_SERVERS);
    }

    /** The configuration the app started with. */
    public SchedulerConfig config() {
        return app.config();
    }

    /** The app's Kafka Streams: its state, metadata and stores. */
    public KafkaStreams streams() {
        return app.streams();
    }

    /** Waits until the streams are {@code RUNNING} again (after a rebalance); fails at once if they failed. */
    public RunningScheduler awaitRunning() {
        await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            State state = app.streams().state();
            if (FAILED.contains(state)) {
                throw new AssertionError("the scheduler '" + config().get(SchedulerConfig.APPLICATION_ID)
                        + "' stopped: " + state);
            }
            return state == State.RUNNING;
        });
        return this;
    }

    /** A producer of input events on this scheduler's topics; the caller closes it. */
    public Inputs inputs() {
        return new Inputs(broker(), topics());
    }

    /** A reader of this scheduler's whole journal, from its start; the caller closes it. */
    public JournalTail journal() {
        return new JournalTail(broker(), topics());
    }

    /** The test broker it runs on (for a test's own producers and consumers). */
    public KafkaBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("this scheduler is not on the test broker");
        }
        return broker;
    }

    /** Stops the app (it leaves its group at once) and deletes the state directory the fixture made. */
    @Override
    public void close() {
        try {
            app.close();
        } finally {
            if (ownedStateDir != null) {
                delete(ownedStateDir);
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Left in the temporary directory: nothing reads it again.
        }
    }

    /** The settings of a scheduler to start; every one has a default fit for a test. */
    public static final class Builder {

        private final KafkaBroker broker;
        private final String bootstrap;
        private final Map<String, String> settings = new HashMap<>();
        private String name = "scheduler";
        private Credentials credentials = Credentials.none();

        private Builder(KafkaBroker broker, String bootstrap) {
            this.broker = broker;
            this.bootstrap = bootstrap;
            partitions(4);
        }

        /** The word that starts the generated topic prefix, application id and state directory. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** The topic prefix (ending in a dot); by default a unique one. */
        public Builder prefix(String prefix) {
            return set(SchedulerConfig.TOPIC_PREFIX, prefix);
        }

        /** The application id, shared by instances that split the pools; by default a unique one. */
        public Builder applicationId(String applicationId) {
            return set(SchedulerConfig.APPLICATION_ID, applicationId);
        }

        /** The state directory, kept on close; by default a new temporary one, deleted on close. */
        public Builder stateDir(Path stateDir) {
            return set(SchedulerConfig.STATE_DIR, stateDir.toString());
        }

        /** The partitions of the topics it creates; 4 by default. */
        public Builder partitions(int partitions) {
            return set(SchedulerConfig.PARTITIONS, Integer.toString(partitions));
        }

        /** The credentials checking worker registrations (and a gateway's calls); none by default. */
        public Builder credentials(Credentials credentials) {
            this.credentials = credentials;
            return this;
        }

        /** How long a worker may go without a heartbeat before the scheduler evicts it. */
        public Builder heartbeatTimeout(Duration timeout) {
            return set(SchedulerConfig.HEARTBEAT_TIMEOUT_MS, Long.toString(timeout.toMillis()));
        }

        /** No worker is evicted during the test: for simulated workers that never heartbeat. */
        public Builder neverEvict() {
            return heartbeatTimeout(NEVER_EVICT);
        }

        /** The {@code host:port} other instances forward a pool's queries to (a gateway's address). */
        public Builder applicationServer(String hostAndPort) {
            return set(SchedulerConfig.APPLICATION_SERVER, hostAndPort);
        }

        /** One setting, overriding the fixture's default. */
        public Builder set(SchedulerConfig.Key key, String value) {
            settings.put(key.name(), value);
            return this;
        }

        /** More settings by their {@code cronoq.*} names (e.g. TLS for a gateway), overriding the defaults. */
        public Builder settings(Map<String, String> more) {
            settings.putAll(more);
            return this;
        }

        /** Starts the scheduler (creating its topics) and waits until it runs; fails if it does not within a minute. */
        public RunningScheduler start() {
            Map<String, String> all = new HashMap<>(settings);
            all.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), broker != null ? broker.bootstrapServers() : bootstrap);
            all.computeIfAbsent(SchedulerConfig.TOPIC_PREFIX.name(), k -> unique(name) + ".");
            all.computeIfAbsent(SchedulerConfig.APPLICATION_ID.name(), k -> unique(name));
            Path ownedStateDir = null;
            if (!all.containsKey(SchedulerConfig.STATE_DIR.name())) {
                ownedStateDir = temporaryDirectory("cronoq-" + name);
                all.put(SchedulerConfig.STATE_DIR.name(), ownedStateDir.toString());
            }
            RunningScheduler scheduler = new RunningScheduler(broker, SchedulerConfig.of(all), credentials, ownedStateDir);
            try {
                return scheduler.awaitRunning();
            } catch (RuntimeException | Error e) {
                scheduler.close();
                throw e;
            }
        }

        private String unique(String word) {
            return broker != null ? broker.uniqueName(word)
                    : word + "-" + UUID.randomUUID().toString().substring(0, 8);
        }

        private static Path temporaryDirectory(String prefix) {
            try {
                return Files.createTempDirectory(prefix);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
