package io.cronoq.gateway;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.Map;

/**
 * One {@link RunningScheduler} with its gateway in this JVM, as ops runs them: {@code cronoq.application.server}
 * set to the gateway's port so other instances can forward; its simulated workers are never evicted.
 */
final class SchedulerNode implements AutoCloseable {

    final SchedulerApp app;
    final GatewayServer gateway;
    final Api api;
    private final RunningScheduler scheduler;

    private SchedulerNode(RunningScheduler scheduler, GatewayServer gateway) {
        this.scheduler = scheduler;
        this.app = scheduler.app();
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
        RunningScheduler scheduler = RunningScheduler.on(broker).settings(settings).prefix(prefix)
                .applicationId(applicationId).partitions(partitions).credentials(credentials).neverEvict()
                .applicationServer("localhost:" + port).start();
        try {
            return new SchedulerNode(scheduler, GatewayServer.start(scheduler.app(), port));
        } catch (RuntimeException e) {
            scheduler.close();
            throw e;
        }
    }

    /**
     * An instance whose gateway checks {@code tokens} while its scheduler takes unsigned worker registrations (the
     * test's simulated workers), for broker tests of what tokens may do over HTTP to a pool with workers.
     */
    static SchedulerNode withGatewayTokens(KafkaBroker broker, String prefix, String applicationId, int partitions,
                                           Credentials tokens) {
        int port = freePort();
        RunningScheduler scheduler = RunningScheduler.on(broker).prefix(prefix).applicationId(applicationId)
                .partitions(partitions).neverEvict().applicationServer("localhost:" + port).start();
        try {
            return new SchedulerNode(scheduler, GatewayServer.start(scheduler.streams(), scheduler.config(),
                    scheduler.topics(), port, Clock.systemUTC(), tokens));
        } catch (RuntimeException e) {
            scheduler.close();
            throw e;
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        gateway.close();
        scheduler.close();
    }
}
