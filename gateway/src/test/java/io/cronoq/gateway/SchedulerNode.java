package io.cronoq.gateway;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Map;

/**
 * One scheduler instance with its gateway in this JVM, as ops runs them: its own state directory,
 * and {@code cronoq.application.server} set to the gateway's port so other instances can forward.
 */
final class SchedulerNode implements AutoCloseable {

    final SchedulerApp app;
    final GatewayServer gateway;
    final Api api;

    private SchedulerNode(SchedulerApp app, GatewayServer gateway) {
        this.app = app;
        this.gateway = gateway;
        this.api = new Api(gateway.url());
    }

    /** Starts an instance of the scheduler {@code applicationId} over the topics under {@code prefix}. */
    static SchedulerNode start(KafkaBroker broker, String prefix, String applicationId, int partitions) {
        return start(broker, prefix, applicationId, partitions, Credentials.none());
    }

    /** As above, with {@code credentials} guarding the gateway and worker registrations. */
    static SchedulerNode start(KafkaBroker broker, String prefix, String applicationId, int partitions,
                               Credentials credentials) {
        return start(broker, prefix, applicationId, partitions, credentials, Map.of());
    }

    /** As above, with more scheduler settings (e.g. TLS for the gateway). */
    static SchedulerNode start(KafkaBroker broker, String prefix, String applicationId, int partitions,
                               Credentials credentials, Map<String, String> settings) {
        int port = freePort();
        try {
            Map<String, String> all = new java.util.HashMap<>(settings);
            all.putAll(Map.of(
                    SchedulerConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                    SchedulerConfig.TOPIC_PREFIX.name(), prefix,
                    SchedulerConfig.APPLICATION_ID.name(), applicationId,
                    SchedulerConfig.STATE_DIR.name(), Files.createTempDirectory("cronoq-gateway").toString(),
                    SchedulerConfig.APPLICATION_SERVER.name(), "localhost:" + port,
                    SchedulerConfig.PARTITIONS.name(), Integer.toString(partitions),
                    // Its simulated workers never heartbeat: no eviction during the test.
                    SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "86400000"));
            SchedulerConfig config = SchedulerConfig.of(all);
            SchedulerApp app = SchedulerApp.start(config, credentials);
            return new SchedulerNode(app, GatewayServer.start(app, port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        gateway.close();
        app.close();
    }
}
