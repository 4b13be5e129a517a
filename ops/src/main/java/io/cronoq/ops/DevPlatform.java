package io.cronoq.ops;

import io.cronoq.gateway.GatewayServer;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The whole platform on one machine: a real single-node Kafka with its data under the data
 * directory, the topics, one scheduler instance with its HTTP gateway and (optionally) demo workers. A second start on the
 * same directory resumes the same state. Closing stops everything in reverse order.
 */
final class DevPlatform implements AutoCloseable {

    /**
     * What to start: the gateway listens on {@code bind}; {@code configFile} (or null) adds a config
     * file's settings, {@code [[auth.tokens]]}, sharing policy and limits, as {@code cronoq scheduler --config}
     * reads them.
     */
    record Options(Path dataDir, int kafkaPort, int controllerPort, int httpPort, boolean demo, String bind,
                   Path configFile) {

        /** Open, on this machine only. */
        Options(Path dataDir, int kafkaPort, int controllerPort, int httpPort, boolean demo) {
            this(dataDir, kafkaPort, controllerPort, httpPort, demo, "127.0.0.1", null);
        }
    }

    private final PrintStream out;
    private final List<AutoCloseable> started = new ArrayList<>();
    private LocalKafka kafka;
    private SchedulerApp scheduler;
    private GatewayServer gateway;

    private DevPlatform(PrintStream out) {
        this.out = out;
    }

    /**
     * Starts the platform, printing progress to {@code out}.
     *
     * @throws IllegalArgumentException when a port is taken (the message names the flag to change)
     */
    static DevPlatform start(Options options, PrintStream out) {
        for (var port : Map.of("--kafka-port", options.kafkaPort(), "--kafka-port + 1 (Kafka's controller)",
                options.controllerPort(), "--port", options.httpPort()).entrySet()) {
            if (LocalKafka.portInUse(port.getValue())) {
                throw new IllegalArgumentException("port " + port.getValue() + " is in use; stop what listens there or choose another with "
                        + port.getKey());
            }
        }
        DevPlatform platform = new DevPlatform(out);
        try {
            platform.startAll(options);
            return platform;
        } catch (RuntimeException e) {
            platform.close();
            throw e;
        }
    }

    private void startAll(Options options) {
        Instant begin = Instant.now();
        // Checked before anything starts: a malformed entry is a usage error naming it.
        ConfigChanges changes = ConfigChanges.read(options.configFile(), begin);
        step("Starting Kafka (single-node KRaft) with its data in " + options.dataDir().resolve("kafka"));
        kafka = LocalKafka.start(options.dataDir().resolve("kafka"), options.kafkaPort(), options.controllerPort());
        started.add(kafka);
        ready("Kafka is up at " + kafka.bootstrapServers());

        step("Starting the scheduler (topics are created if missing)");
        scheduler = SchedulerApp.start(config(options, kafka.bootstrapServers()), credentials(options));
        started.add(scheduler);
        awaitRunning(scheduler.streams(), Duration.ofSeconds(60));
        ready("Scheduler is running");

        if (!changes.isEmpty()) {
            step("Sending the " + changes.what() + " of " + options.configFile() + " to the scheduler");
            ConfigPublisher.publish(scheduler, changes);
            String what = changes.what();
            ready(Character.toUpperCase(what.charAt(0)) + what.substring(1) + " sent (" + changes.summary()
                    + "); the journal keeps it");
        }

        step("Starting the gateway on " + options.bind() + ":" + options.httpPort()
                + (scheduler.credentials().isEmpty() ? " (open: no tokens)" : " (tokens from " + options.configFile() + ")"));
        gateway = GatewayServer.start(scheduler, options.httpPort());
        started.add(gateway);
        ready("Gateway is up: dashboard " + gateway.url() + "/");

        if (options.demo()) {
            step("Starting demo workers in pool '" + DemoWorkers.POOL + "': demo-cpu-1, demo-cpu-2 and demo-gpu-1 (gpu=a100)");
            DemoWorkers demo = DemoWorkers.start(kafka.bootstrapServers());
            started.add(demo);
            ready("Demo workers registered: 2 groups, 6 slots");
        }
        out.printf("%ncronoq is up in %.1f s.%n  Dashboard:       %s/%n  API:             %s/v1/snapshot%n"
                        + "  Kafka bootstrap: %s%n  Data directory:  %s%n  Ctrl-C stops everything.%n",
                Duration.between(begin, Instant.now()).toMillis() / 1000.0, gateway.url(), gateway.url(),
                kafka.bootstrapServers(), options.dataDir().toAbsolutePath());
    }

    /** The config file's settings, if any, under dev's own Kafka, application id, state directory, port and bind. */
    static SchedulerConfig config(Options options, String bootstrapServers) {
        Map<String, Object> settings = new HashMap<>(
                options.configFile() == null ? Map.of() : ConfigFile.read(options.configFile()));
        settings.put(SchedulerConfig.BOOTSTRAP_SERVERS.name(), bootstrapServers);
        settings.putIfAbsent(SchedulerConfig.APPLICATION_ID.name(), "cronoq-dev");
        settings.put(SchedulerConfig.STATE_DIR.name(), options.dataDir().resolve("state").toString());
        settings.put(SchedulerConfig.APPLICATION_SERVER.name(), "localhost:" + options.httpPort());
        settings.put(SchedulerConfig.HTTP_BIND.name(), options.bind());
        return SchedulerConfig.of(settings);
    }

    /** The config file's {@code [[auth.tokens]]}; none (open) without one. */
    static Credentials credentials(Options options) {
        return options.configFile() == null ? Credentials.none()
                : Credentials.fromEntries(ConfigFile.tables(options.configFile(), "auth.tokens"), System::getenv);
    }

    private static void awaitRunning(KafkaStreams streams, Duration timeout) {
        Instant deadline = Instant.now().plus(timeout);
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.NOT_RUNNING
                    || Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("the scheduler did not reach RUNNING (state " + streams.state()
                        + " after " + timeout.toSeconds() + " s); see the log above");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting", e);
            }
        }
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    SchedulerApp scheduler() {
        return scheduler;
    }

    GatewayServer gateway() {
        return gateway;
    }

    private void step(String what) {
        out.println("… " + what);
    }

    private void ready(String what) {
        out.println("✓ " + what);
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                out.println("! could not stop " + started.get(i) + ": " + e.getMessage());
            }
        }
        started.clear();
    }
}
