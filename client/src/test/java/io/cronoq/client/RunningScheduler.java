package io.cronoq.client;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real scheduler on the test broker with its own topic prefix, application id and state
 * directory, so tests share nothing; plus the clients a test needs against it.
 */
final class RunningScheduler implements AutoCloseable {

    static final int PARTITIONS = 4;

    private final KafkaBroker broker;
    private final SchedulerApp app;
    private final String prefix;

    private RunningScheduler(KafkaBroker broker, SchedulerApp app, String prefix) {
        this.broker = broker;
        this.app = app;
        this.prefix = prefix;
    }

    static RunningScheduler start(KafkaBroker broker, Path stateDir) {
        return start(broker, stateDir, broker.uniqueName("client") + ".");
    }

    static RunningScheduler start(KafkaBroker broker, Path stateDir, String prefix) {
        SchedulerConfig config = SchedulerConfig.of(Map.of(
                SchedulerConfig.BOOTSTRAP_SERVERS.name(), broker.bootstrapServers(),
                SchedulerConfig.TOPIC_PREFIX.name(), prefix,
                SchedulerConfig.APPLICATION_ID.name(), broker.uniqueName("scheduler"),
                SchedulerConfig.STATE_DIR.name(), stateDir.toString(),
                SchedulerConfig.PARTITIONS.name(), String.valueOf(PARTITIONS),
                // Its simulated workers never heartbeat: no eviction during the test.
                SchedulerConfig.HEARTBEAT_TIMEOUT_MS.name(), "86400000"));
        return new RunningScheduler(broker, SchedulerApp.start(config), prefix);
    }

    /** The scheduler's topics (with its registry). */
    Topics topics() {
        return app.topics();
    }

    String prefix() {
        return prefix;
    }

    /** A client on this scheduler's topics; the caller closes it. */
    CronoqClient client() {
        return CronoqClient.builder(broker.bootstrapServers()).topicPrefix(prefix).build();
    }

    SimulatedWorker worker(String pool, String workerId) {
        return new SimulatedWorker(broker, topics(), pool, workerId);
    }

    JournalTail journal() {
        return new JournalTail(broker, topics());
    }

    @Override
    public void close() {
        app.close();
    }
}
