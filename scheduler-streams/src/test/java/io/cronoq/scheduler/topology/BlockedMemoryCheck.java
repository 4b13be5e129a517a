package io.cronoq.scheduler.topology;

import io.cronoq.events.Dependency;
import io.cronoq.events.ParentCondition;
import io.cronoq.events.Priority;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.query.ReadOnlyStores;
import io.cronoq.scheduler.query.SchedulerQueries;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;

/**
 * What blocked tasks cost the heap: the scheduler topology (RocksDB stores, under {@link TopologyTestDriver}) takes
 * a parent that never starts (its pool has no worker), then {@code children} tasks that wait for it. The heap used
 * after full collections is printed before and after the children came, with the pool's blocked count: blocked
 * tasks are records in RocksDB, in no line, timer or index, so the heap should stay where it was. Run:
 * {@code ./mvnw -pl scheduler-streams test-compile exec:exec@blocked-memory [-Dbench.args=100000]}.
 */
public final class BlockedMemoryCheck {

    private static final String POOL = "blocked";
    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    private BlockedMemoryCheck() {}

    public static void main(String[] args) throws Exception {
        String given = String.join(" ", args).trim();
        int children = given.isEmpty() ? 100_000 : Integer.parseInt(given);
        Topics topics = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry());
        Path state = Files.createTempDirectory("cronoq-blocked-memory");
        SchedulerConfig config = SchedulerConfig.of(Map.of(SchedulerConfig.BOOTSTRAP_SERVERS.name(), "dummy:9092",
                SchedulerConfig.STATE_DIR.name(), state.toString()));
        try (TopologyTestDriver driver = new TopologyTestDriver(SchedulerTopology.build(topics),
                SchedulerApp.streamsProperties(config))) {
            TestInputTopic<String, SubmissionEvent> submissions = driver.createInputTopic(topics.submissions().name(),
                    topics.submissions().keySerde().serializer(), topics.submissions().valueSerde().serializer());
            submissions.pipeInput(POOL, new SubmissionEvent(task("root", List.of())));
            // A first round of children, so what any run builds once (code, caches) is counted before.
            submit(driver, submissions, "warm", 5_000);
            long before = usedAfterGc();
            submit(driver, submissions, "child", children);
            long after = usedAfterGc();
            SchedulerQueries queries = new SchedulerQueries(ReadOnlyStores.of(driver::getKeyValueStore));
            long blocked = queries.pool(POOL).orElseThrow().snapshot().blocked();
            System.out.printf("blocked tasks: %,d%n", blocked);
            System.out.printf("heap used after GC: %,d B before the children, %,d B after: %+,.1f B per blocked task%n",
                    before, after, (after - before) / (double) children);
        }
    }

    private static void submit(TopologyTestDriver driver, TestInputTopic<String, SubmissionEvent> submissions,
                               String stem, int n) {
        List<Dependency> root = List.of(new Dependency("root", null, ParentCondition.SUCCEEDED));
        for (int i = 0; i < n; i++) {
            submissions.pipeInput(POOL, new SubmissionEvent(task(stem + "-" + i, new ArrayList<>(root))));
            if (i % 1_000 == 999) {
                drain(driver);
            }
        }
        drain(driver);
    }

    /** Reads what the driver wrote to every topic (the journal, the stores' changelogs): it keeps it until read. */
    private static void drain(TopologyTestDriver driver) {
        var bytes = new org.apache.kafka.common.serialization.ByteArrayDeserializer();
        for (String topic : driver.producedTopicNames()) {
            driver.createOutputTopic(topic, bytes, bytes).readRecordsToList();
        }
    }

    private static TaskSubmitted task(String id, List<Dependency> after) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setPriority(Priority.NORMAL).setSubmittedAt(AT)
                .setPayload(ByteBuffer.wrap(new byte[64])).setAfter(after).build();
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        return heap.getUsed();
    }
}
