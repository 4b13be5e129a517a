package io.cronoq.gateway;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.javalin.Javalin;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway next to a scheduler instance in the same process:
 * {@code try (var gateway = GatewayServer.start(app, 8080)) { … }}. It reads the instance's stores,
 * forwards to the other instances at their {@code cronoq.application.server}, and owns its own
 * Kafka producer, journal consumer ({@link JournalFeed}) and schema registry client, which
 * {@link #close()} releases.
 */
public final class GatewayServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);
    /** How long a write waits for Kafka, and a forwarded read for a peer. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Javalin app;
    private final String bind;
    private final GatewayTls tls;
    private final KafkaCommands commands;
    private final GatewayMetrics metrics;
    private final SchemaRegistry registry;
    private final JournalFeed journal;
    private final Forecasts forecasts;

    private GatewayServer(Javalin app, String bind, GatewayTls tls, KafkaCommands commands, GatewayMetrics metrics,
                          SchemaRegistry registry, JournalFeed journal, Forecasts forecasts) {
        this.app = app;
        this.forecasts = forecasts;
        this.bind = bind;
        this.tls = tls;
        this.commands = commands;
        this.metrics = metrics;
        this.registry = registry;
        this.journal = journal;
    }

    /**
     * Starts the gateway of a scheduler instance on {@code port} (0 for any free port), at the
     * address of {@code cronoq.http.bind}. For several instances, set each one's
     * {@code cronoq.application.server} to the host and this port.
     */
    public static GatewayServer start(SchedulerApp scheduler, int port) {
        return start(scheduler.streams(), scheduler.config(), scheduler.topics(), port, Clock.systemUTC(),
                scheduler.credentials());
    }

    /** Starts a gateway over any Kafka Streams instance running the scheduler topology over {@code topics}. */
    public static GatewayServer start(KafkaStreams streams, SchedulerConfig config, Topics topics, int port,
                                      Clock clock) {
        return start(streams, config, topics, port, clock, Credentials.none());
    }

    /** As above, with {@code credentials} deciding who may call what (empty: open, logged loudly). */
    public static GatewayServer start(KafkaStreams streams, SchedulerConfig config, Topics topics, int port,
                                      Clock clock, Credentials credentials) {
        Map<String, Object> kafka = config.kafkaClientSettings();
        HostInfo self = self(config);
        String bind = config.get(SchedulerConfig.HTTP_BIND).trim();
        GatewayTls tls = GatewayTls.of(config, System::getenv);

        SchemaRegistry registry = SchedulerApp.registry(config);
        KafkaCommands commands = null;
        GatewayMetrics metrics = null;
        JournalFeed journal = null;
        Forecasts forecasts = null;
        Javalin app;
        try {
            commands = new KafkaCommands(kafka, topics, TIMEOUT);
            String inputTopic = topics.submissions().name();
            JournalHistory history = new JournalHistory(HistoryRoutes.MAX_MINUTES);
            forecasts = new Forecasts(history.runTimes(), config.timeRules(), clock);
            LocalStateReader local = new LocalStateReader(streams, inputTopic, clock, forecasts);
            Ownership ownership = new Ownership(streams, self, inputTopic, commands::inputPartitions, local);
            metrics = new GatewayMetrics(streams, local, clock);
            JournalMeter meter = new JournalMeter(metrics.registry(), local::ownedPartitions,
                    commands::inputPartitions);
            PeerClient peers = new PeerClient(TIMEOUT, tls == null ? null : tls.peerContext());
            ClusterStateReader cluster = new ClusterStateReader(local, ownership, peers, clock);
            journal = new JournalFeed(kafka, topics, meter, history, cluster, clock).start();
            ForwardedStateReader forwarded = new ForwardedStateReader(local, ownership, peers::answers);
            metrics.unserved(forwarded::unservedPartitions);
            GatewayContext context = new GatewayContext(cluster, forwarded,
                    commands, registry, metrics, clock, credentials, history, GatewaySettings.gangMaxSize(config));
            app = Gateway.create(context, tls, bind, port).start(bind, port);
        } catch (RuntimeException e) {
            // Did not start (e.g. the port is taken): release what was opened, then say why.
            if (journal != null) {
                journal.close();
            }
            if (forecasts != null) {
                forecasts.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            if (commands != null) {
                commands.close();
            }
            registry.close();
            throw e;
        }
        if (self != null && self.port() != app.port()) {
            log.warn("cronoq.application.server is {}:{} but the gateway listens on {}; other instances will "
                    + "forward to the wrong port", self.host(), self.port(), app.port());
        }
        log.info("Gateway listening on {}:{} (forwarding {})", bind, app.port(),
                self == null ? "off: no cronoq.application.server" : "as " + self.host() + ":" + self.port());
        if (credentials.isEmpty() && !loopback(bind)) {
            log.warn("The gateway is OPEN and listens on {}, not only on this machine: anyone who can reach port {} "
                    + "can submit, cancel and drain. Set cronoq.http.bind = \"127.0.0.1\" or configure [[auth.tokens]].",
                    bind, app.port());
        }
        return new GatewayServer(app, bind, tls, commands, metrics, registry, journal, forecasts);
    }

    private static HostInfo self(SchedulerConfig config) {
        String server = config.get(SchedulerConfig.APPLICATION_SERVER);
        return server == null || server.isBlank() ? null : HostInfo.buildFromEndpoint(server.trim());
    }

    /** The port it listens on. */
    public int port() {
        return app.port();
    }

    /** The address it listens on ({@code cronoq.http.bind}). */
    public String bind() {
        return bind;
    }

    /** {@code http://localhost:<port>} ({@code https} with TLS), or the bound address when it is one interface's. */
    public String url() {
        boolean everywhere = bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("[::]");
        String host = everywhere || loopback(bind) ? "localhost" : bind.contains(":") ? "[" + bind + "]" : bind;
        return (tls == null ? "http://" : "https://") + host + ":" + port();
    }

    private static boolean loopback(String bind) {
        return bind.equals("localhost") || bind.startsWith("127.") || bind.equals("::1") || bind.equals("[::1]");
    }

    /** Stops serving, then releases its Kafka clients and registry. */
    @Override
    public void close() {
        app.stop();
        journal.close();
        forecasts.close();
        metrics.close();
        commands.close();
        try {
            registry.close();
        } catch (RuntimeException e) {
            log.warn("Closing the gateway's schema registry failed", e);
        }
    }
}
