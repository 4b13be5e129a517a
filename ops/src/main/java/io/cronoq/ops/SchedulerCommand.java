package io.cronoq.ops;

import io.cronoq.gateway.GatewayServer;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code cronoq scheduler}: runs one scheduler instance against any Kafka cluster until stopped. */
@Command(name = "scheduler", mixinStandardHelpOptions = true,
        description = "Run a scheduler instance with its HTTP gateway against a Kafka cluster (Ctrl-C stops it cleanly).",
        footer = {"", "The config file (--config) may say how pools are shared between tenants. At every start the "
                + "scheduler sends each entry as a sharing change (set by 'config file'), journaled like an admin's; "
                + "what an entry leaves out stays as it was:",
            "  [[sharing.tenants]]",
            "  pool = \"gpu\"",
            "  tenant = \"research\"",
            "  weight = 3                # above 0, at most 1000 (default 1)",
            "  # labels left out: the whole pool; guaranteed or max left out: 0, none",
            "  quotas = [{ labels = { gpu = \"a100\" }, guaranteed = 4, max = 16 }]",
            "",
            "  [[sharing.pools]]",
            "  pool = \"gpu\"",
            "  preemption = true         # default true",
            "  preemption_grace = \"30s\" # default 30s",
            "",
            "It may also limit concurrency keys and define rate limits, sent the same way (set by 'config file'):",
            "  [[limits.keys]]",
            "  pool = \"gpu\"",
            "  key = \"customer-42\"",
            "  max = 2                   # attempts holding the key at once, 1 to 1000000",
            "",
            "  [[limits.rates]]",
            "  pool = \"gpu\"",
            "  name = \"openai\"",
            "  perSecond = 10            # units refilled per second, above 0",
            "  burst = 20                # units held at most (default: perSecond rounded up)"})
final class SchedulerCommand implements Callable<Integer> {

    @Mixin
    KafkaOptions kafka;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Directory of the RocksDB state stores.")
    Path stateDir;

    @Option(names = "--application-id", paramLabel = "ID", description = "Instances with the same id share the pools (default: cronoq-scheduler).")
    String applicationId;

    @Option(names = "--instance-id", paramLabel = "ID",
            description = "This instance's static group membership id (default: derived from the host name and the state "
                    + "directory). Two live instances must never share one.")
    String instanceId;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
            description = "HTTP port of this instance's gateway (default: ${DEFAULT-VALUE}); other instances forward to it "
                    + "at cronoq.application.server, so set that to host:port when running several.")
    int httpPort;

    @Option(names = "--bind", paramLabel = "ADDRESS",
            description = "Address the gateway listens on (default: cronoq.http.bind, else 0.0.0.0: every interface); "
                    + "127.0.0.1 keeps it to this machine.")
    String bind;

    @Override
    public Integer call() throws InterruptedException {
        Map<String, Object> settings = kafka.settings();
        KafkaOptions.override(settings, SchedulerConfig.STATE_DIR, stateDir == null ? null : stateDir.toString());
        KafkaOptions.override(settings, SchedulerConfig.APPLICATION_ID, applicationId);
        KafkaOptions.override(settings, SchedulerConfig.HTTP_BIND, bind);
        KafkaOptions.override(settings, SchedulerConfig.INSTANCE_ID, instanceId);
        SchedulerConfig config = SchedulerConfig.of(settings);
        // Checked before anything starts: a malformed entry is a usage error naming it.
        ConfigChanges changes = kafka.changes(Instant.now());
        SchedulerApp app = SchedulerApp.start(config, kafka.credentials());
        try {
            ConfigPublisher.publish(app, changes);
        } catch (RuntimeException e) {
            app.close();
            throw e;
        }
        if (!changes.isEmpty()) {
            System.out.println("cronoq scheduler: the config file's " + changes.what() + " (" + changes.summary()
                    + ") sent to " + app.topics().submissions().name() + "; the journal keeps it");
        }
        GatewayServer gateway = GatewayServer.start(app, httpPort);
        System.out.println("cronoq scheduler running as instance " + SchedulerApp.instanceId(config) + "; gateway at "
                + gateway.url() + "/ (Ctrl-C stops it)");
        CountDownLatch stopped = UntilStopped.closeOnShutdown("cronoq-scheduler-shutdown", () -> {
            gateway.close();
            app.close();
        });
        // A stream thread failure that stops the client (a full state directory) leaves Kafka Streams in ERROR:
        // then this process ends non-zero instead of serving nothing.
        while (!stopped.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
            if (app.streams().state() == org.apache.kafka.streams.KafkaStreams.State.ERROR) {
                System.err.println("cronoq scheduler stopped: Kafka Streams failed (see the ERROR above)");
                gateway.close();
                app.close();
                return 1;
            }
        }
        return 0;
    }
}
