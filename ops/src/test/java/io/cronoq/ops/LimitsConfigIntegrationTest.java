package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.client.CronoqClient;
import io.cronoq.client.Task;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.events.Journal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A config file's limits on a real broker: at start ({@code cronoq dev --config}, which starts the
 * scheduler as {@code cronoq scheduler --config} does) each entry is journaled as a {@code LimitSet}
 * set by the config file before any task comes, and the scheduler decides under it: tasks naming the
 * key with no max of their own run two at a time (the file's limit, not the default of one), and a
 * task naming the file's rate limit runs (an undefined one would keep it waiting).
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class LimitsConfigIntegrationTest {

    private static final String KEY = "customer-42";

    @TempDir
    Path dir;

    @Test
    void theConfiguredLimitsAreJournaledAtStartAndInForce() throws Exception {
        Path config = Files.writeString(dir.resolve("cronoq.toml"), """
                [[limits.keys]]
                pool = "demo"
                key = "customer-42"
                max = 2

                [[limits.rates]]
                pool = "demo"
                name = "openai"
                perSecond = 5
                """);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        DevPlatform.Options options = new DevPlatform.Options(dir.resolve("data"), LocalKafka.freePort(),
                LocalKafka.freePort(), LocalKafka.freePort(), true, "127.0.0.1", config);

        try (DevPlatform platform = DevPlatform.start(options, new PrintStream(progress, true, StandardCharsets.UTF_8));
             CronoqClient client = CronoqClient.connect(platform.bootstrapServers())) {
            // Four tasks of the key (no max of their own) and one of the rate limit, on six free demo slots.
            List<Task> keyed = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                keyed.add(Task.of("800").pool(DemoWorkers.POOL).concurrency(KEY).id("keyed-" + i).build());
            }
            Task rated = Task.of("100").pool(DemoWorkers.POOL).rateLimit("openai").id("rated-1").build();
            for (Task task : keyed) {
                client.submit(task).get(30, TimeUnit.SECONDS);
            }
            client.submit(rated).get(30, TimeUnit.SECONDS);

            for (Task task : keyed) {
                assertThat(client.outcome(task).get(90, TimeUnit.SECONDS).state()).isEqualTo(TaskState.SUCCEEDED);
            }
            assertThat(client.outcome(rated).get(90, TimeUnit.SECONDS).state()).as("the file defined its rate limit")
                    .isEqualTo(TaskState.SUCCEEDED);

            List<Object> journal = read(platform);
            List<LimitSet> limits = journal.stream().filter(LimitSet.class::isInstance).map(LimitSet.class::cast)
                    .toList();
            assertThat(limits).hasSize(2).allSatisfy(l -> {
                assertThat(l.getSetBy()).isEqualTo("config file");
                assertThat(l.getPool()).isEqualTo(DemoWorkers.POOL);
            });
            assertThat(limits.get(0).getKind()).isEqualTo(LimitKind.CONCURRENCY_KEY);
            assertThat(limits.get(0).getName()).isEqualTo(KEY);
            assertThat(limits.get(0).getMax()).isEqualTo(2);
            assertThat(limits.get(1).getKind()).isEqualTo(LimitKind.RATE_LIMIT);
            assertThat(limits.get(1).getPerSecond()).isEqualTo(5.0);
            int lastLimit = journal.lastIndexOf(limits.get(1));
            int firstTask = journal.indexOf(journal.stream().filter(TaskSubmitted.class::isInstance).findFirst()
                    .orElseThrow());
            assertThat(lastLimit).as("the limits are in force before the tasks come").isLessThan(firstTask);

            // Replayed in journal order (one pool: one partition), the key's holders are never more than its
            // limit of 2, and reach it.
            Set<String> holding = new HashSet<>();
            int most = 0;
            for (Object event : journal) {
                if (event instanceof AttemptAssigned a && a.getTaskId().startsWith("keyed-")) {
                    holding.add(a.getTaskId());
                    most = Math.max(most, holding.size());
                } else if (event instanceof TaskFinished f && f.getTaskId().startsWith("keyed-")) {
                    holding.remove(f.getTaskId());
                }
            }
            assertThat(most).as("at most the file's limit at once, and more than the default of 1").isEqualTo(2);
        }
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("Limits sent (1 key limit(s) and 1 rate limit(s)); the journal keeps it");
    }

    /** Every event of the journal so far, each partition's in order. */
    private static List<Object> read(DevPlatform platform) {
        Topic<String, JournalEntry> topic = platform.scheduler().topics().journal();
        List<Object> events = new ArrayList<>();
        try (KafkaConsumer<String, JournalEntry> consumer = new KafkaConsumer<>(
                KafkaClients.logReader(Map.of("bootstrap.servers", platform.bootstrapServers()),
                        KafkaClients.uniqueId("limits-config-test")),
                topic.keySerde().deserializer(), topic.valueSerde().deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> Journal.entries(r.value())
                        .forEach(e -> events.add(e.getEvent())));
            }
        }
        return events;
    }
}
