package io.cronoq.kafka;

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
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node KRaft Kafka (combined broker and controller) inside this JVM on 127.0.0.1, with its
 * log in a directory of the caller's. Storage is formatted on first use and reused after, so a second
 * start resumes the same topics. Configured so consumer groups and exactly-once work on one node.
 */
public final class LocalKafka implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalKafka.class);
    private static final String LOOPBACK = "127.0.0.1";

    private final Path dataDir;
    private final KafkaRaftServer server;
    private final String bootstrapServers;

    private LocalKafka(Path dataDir, KafkaRaftServer server, String bootstrapServers) {
        this.dataDir = dataDir;
        this.server = server;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts a node keeping its data in {@code dataDir} (formatted if new), listening on {@code port}
     * for clients and {@code controllerPort} for its controller. Returns once it serves clients.
     *
     * @throws LocalKafkaException when the directory cannot be used or the node does not start, with what to do
     */
    public static LocalKafka start(Path dataDir, int port, int controllerPort) {
        return start(dataDir, port, controllerPort, new Properties());
    }

    /**
     * As {@link #start(Path, int, int)}, with {@code overrides} over the default broker settings (e.g.
     * SASL listeners and an authorizer, see {@link #saslPlainProperties}); the client address is
     * always 127.0.0.1:{@code port}.
     */
    public static LocalKafka start(Path dataDir, int port, int controllerPort, Properties overrides) {
        Path logDir = dataDir.resolve("log");
        Properties props = serverProperties(logDir, port, controllerPort);
        props.putAll(overrides);
        KafkaRaftServer server = null;
        try {
            Files.createDirectories(dataDir);
            Path configFile = dataDir.resolve("server.properties");
            try (Writer out = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
                props.store(out, "cronoq local Kafka");
            }
            if (!Files.exists(logDir.resolve("meta.properties"))) {
                format(configFile);
            }
            server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
            // Returns once the broker is unfenced, i.e. ready to serve clients.
            server.startup();
        } catch (IOException e) {
            stopQuietly(server);
            throw new LocalKafkaException("cannot use " + dataDir + " for Kafka's data: " + e.getMessage()
                    + "; choose another directory or fix its permissions", e);
        } catch (RuntimeException e) {
            stopQuietly(server);
            throw new LocalKafkaException("Kafka did not start with its data in " + dataDir + ": " + e.getMessage()
                    + "; if the directory is damaged, remove it (its topics are lost) or choose another", e);
        }
        String bootstrap = LOOPBACK + ":" + port;
        log.info("Local Kafka (KRaft) up at {} with its data in {}", bootstrap, dataDir);
        return new LocalKafka(dataDir, server, bootstrap);
    }

    /** The broker settings of one combined node; one node needs replication 1 for every internal topic. */
    public static Properties serverProperties(Path logDir, int port, int controllerPort) {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.bootstrap.servers", LOOPBACK + ":" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://" + LOOPBACK + ":" + port + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://" + LOOPBACK + ":" + port);
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("log.dirs", logDir.toAbsolutePath().toString());
        p.setProperty("num.partitions", "1");
        // A producer that writes before the scheduler created its topics must fail, not create a topic
        // with the wrong partition count that the scheduler then refuses.
        p.setProperty("auto.create.topics.enable", "false");
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
        // The log cleaner would otherwise take 128 MB of heap for its dedupe buffer.
        p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(4 * 1024 * 1024));
        return p;
    }

    /**
     * Overrides that make the client listener SASL_PLAINTEXT with mechanism PLAIN and turn on KRaft's
     * {@code StandardAuthorizer}: {@code users} maps each user name to its password; {@code admin} (one
     * of them) is the super user the broker itself connects as. The controller listener stays
     * PLAINTEXT on loopback, so its principal (ANONYMOUS) is a super user too — local and tests only.
     */
    public static Properties saslPlainProperties(int port, int controllerPort, String admin,
                                                 java.util.Map<String, String> users) {
        Properties p = new Properties();
        p.setProperty("listeners", "SASL_PLAINTEXT://" + LOOPBACK + ":" + port + ",CONTROLLER://" + LOOPBACK + ":"
                + controllerPort);
        p.setProperty("advertised.listeners", "SASL_PLAINTEXT://" + LOOPBACK + ":" + port);
        p.setProperty("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("inter.broker.listener.name", "SASL_PLAINTEXT");
        p.setProperty("sasl.enabled.mechanisms", "PLAIN");
        p.setProperty("sasl.mechanism.inter.broker.protocol", "PLAIN");
        StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required")
                .append(" username=\"").append(admin).append("\" password=\"").append(users.get(admin)).append('"');
        users.forEach((user, password) -> jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
        p.setProperty("listener.name.sasl_plaintext.plain.sasl.jaas.config", jaas.append(';').toString());
        p.setProperty("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.setProperty("super.users", "User:" + admin + ";User:ANONYMOUS");
        p.setProperty("allow.everyone.if.no.acl.found", "false");
        return p;
    }

    /** A port of 127.0.0.1 that was free a moment ago. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + LOOPBACK, e);
        }
    }

    /** Whether something already listens on this port of 127.0.0.1. */
    public static boolean portInUse(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(LOOPBACK))) {
            socket.setReuseAddress(true);
            return false;
        } catch (IOException e) {
            return true;
        }
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
            throw new IllegalStateException("formatting Kafka storage failed (exit " + code + "): " + text);
        }
        log.debug("Formatted Kafka storage: {}", text);
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the node and waits for it; its data stays. */
    @Override
    public void close() {
        stopQuietly(server);
        log.info("Local Kafka at {} stopped", bootstrapServers);
    }

    private static void stopQuietly(KafkaRaftServer server) {
        if (server == null) {
            return;
        }
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            log.warn("Local Kafka did not shut down cleanly", e);
        }
    }

    /** The local Kafka could not be started; the message says why and what to do. */
    public static final class LocalKafkaException extends RuntimeException {
        public LocalKafkaException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
