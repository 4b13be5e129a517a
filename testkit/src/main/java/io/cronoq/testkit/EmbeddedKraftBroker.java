package io.cronoq.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka (combined broker and controller) inside this JVM, on free ports of 127.0.0.1,
 * with its storage in a temp directory that {@link #close()} deletes. Configured so consumer groups and
 * exactly-once transactions work on one node.
 */
final class EmbeddedKraftBroker implements BrokerBackend {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKraftBroker.class);
    private static final String LOOPBACK = "127.0.0.1";
    private static final int START_ATTEMPTS = 3;

    private final Path baseDir;
    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private EmbeddedKraftBroker(Path baseDir, KafkaRaftServer server, String bootstrapServers) {
        this.baseDir = baseDir;
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /** Formats fresh storage and starts the node; retries with new ports if a probed port was taken meanwhile. */
    static EmbeddedKraftBroker start() {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            try {
                return startOnce();
            } catch (RuntimeException e) {
                last = e;
                log.warn("In-JVM Kafka failed to start (attempt {}/{}): {}", attempt, START_ATTEMPTS, e.toString());
            }
        }
        throw last;
    }

    private static EmbeddedKraftBroker startOnce() {
        Path baseDir = createTempDir();
        KafkaRaftServer server = null;
        try {
            int brokerPort = freePort();
            int controllerPort = freePort();
            Properties props = serverProperties(baseDir.resolve("logs"), brokerPort, controllerPort);
            Path configFile = baseDir.resolve("server.properties");
            try (Writer out = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
                props.store(out, "cronoq test broker");
            }
            format(configFile);
            server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            // Returns once the broker is unfenced, i.e. ready to serve clients.
            server.startup();
            String bootstrap = LOOPBACK + ":" + brokerPort;
            log.info("In-JVM Kafka (KRaft) up at {} with storage in {}", bootstrap, baseDir);
            return new EmbeddedKraftBroker(baseDir, server, bootstrap);
        } catch (IOException e) {
            stopQuietly(server);
            deleteRecursively(baseDir);
            throw new UncheckedIOException("Could not prepare the in-JVM Kafka in " + baseDir, e);
        } catch (RuntimeException e) {
            stopQuietly(server);
            deleteRecursively(baseDir);
            throw e;
        }
    }

    static Properties serverProperties(Path logDir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.bootstrap.servers", LOOPBACK + ":" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort);
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("log.dirs", logDir.toAbsolutePath().toString());
        p.setProperty("num.partitions", "1");
        // One node: every internal topic must accept replication 1, or groups hang and transactions never start.
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        // Fewer internal partitions: the coordinators load faster on the first group/transaction.
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.num.partitions", "4");
        // Saves 3 s on the first rebalance of every consumer group.
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // The log cleaner would otherwise take 128 MB of the test heap for its dedupe buffer.
        p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(4 * 1024 * 1024));
        return p;
    }

    private static void format(Path configFile) {
        String clusterId = Uuid.randomUuid().toString();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            code = StorageTool.execute(
                    new String[] {"format", "--standalone", "-t", clusterId, "-c", configFile.toString()}, out);
        }
        String text = output.toString(StandardCharsets.UTF_8).trim();
        if (code != 0) {
            throw new IllegalStateException("Formatting Kafka storage failed (exit " + code + "): " + text);
        }
        log.debug("Formatted Kafka storage: {}", text);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("cronoq-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temp directory for the in-JVM Kafka", e);
        }
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public String description() {
        return "in-JVM KRaft broker at " + bootstrapServers;
    }

    @Override
    public void close() {
        stopQuietly(server);
        deleteRecursively(baseDir);
        log.info("In-JVM Kafka at {} stopped and its storage deleted", bootstrapServers);
    }

    private static void stopQuietly(KafkaRaftServer server) {
        if (server == null) {
            return;
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("In-JVM Kafka did not shut down cleanly", e);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    log.warn("Could not delete {}: {}", path, e.toString());
                }
            });
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete the Kafka temp directory {}", dir, e);
        }
    }
}
