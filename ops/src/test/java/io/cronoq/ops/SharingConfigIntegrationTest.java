package io.cronoq.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.client.CronoqClient;
import io.cronoq.client.Task;
import io.cronoq.client.TaskOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A config file's sharing policy on a real broker: at start ({@code cronoq dev --config}, which
 * starts the scheduler as {@code cronoq scheduler --config} does) each entry is journaled as a
 * {@code SharingPolicySet} set by the config file, and the scheduler decides under it.
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SharingConfigIntegrationTest {

    @TempDir
    Path dir;

    @Test
    void theConfiguredPolicyIsJournaledAtStartAndInForce() throws Exception {
        Path config = Files.writeString(dir.resolve("cronoq.toml"), """
                [[sharing.tenants]]
                pool = "demo"
                tenant = "interns"
                quotas = [{ max = 0 }]

                [[sharing.tenants]]
                pool = "demo"
                tenant = "research"
                weight = 3

                [[sharing.pools]]
                pool = "demo"
                preemption = false
                preemption_grace = "1m"
                """);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        DevPlatform.Options options = new DevPlatform.Options(dir.resolve("data"), LocalKafka.freePort(),
                LocalKafka.freePort(), LocalKafka.freePort(), true, "127.0.0.1", config);

        try (DevPlatform platform = DevPlatform.start(options, new PrintStream(progress, true, StandardCharsets.UTF_8));
             CronoqClient client = CronoqClient.connect(platform.bootstrapServers())) {
            Task intern = Task.of("100").pool(DemoWorkers.POOL).tenant("interns").id("intern-1").build();
            Task researcher = Task.of("100").pool(DemoWorkers.POOL).tenant("research").id("research-1").build();
            client.submit(intern).get(30, TimeUnit.SECONDS);
            client.submit(researcher).get(30, TimeUnit.SECONDS);

            TaskOutcome ran = client.outcome(researcher).get(90, TimeUnit.SECONDS);
            assertThat(ran.state()).isEqualTo(TaskState.SUCCEEDED);

            List<JournalEntry> journal = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                journal.clear();
                journal.addAll(read(platform));
                assertThat(journal).anySatisfy(e -> assertThat(e.getEvent()).isInstanceOfSatisfying(TaskWaiting.class,
                        w -> assertThat(w.getTaskId()).isEqualTo("intern-1")));
            });
            List<SharingPolicySet> policies = journal.stream().map(JournalEntry::getEvent)
                    .filter(SharingPolicySet.class::isInstance).map(SharingPolicySet.class::cast).toList();
            assertThat(policies).extracting(SharingPolicySet::getTenant).containsExactly(null, "interns", "research");
            assertThat(policies).allSatisfy(p -> assertThat(p.getSetBy()).isEqualTo("config file"));
            assertThat(policies.get(0).getPreemption()).isFalse();
            assertThat(policies.get(0).getPreemptionGraceMs()).isEqualTo(60_000);
            assertThat(policies.get(2).getWeight()).isEqualTo(3.0);
            TaskWaiting held = journal.stream().map(JournalEntry::getEvent).filter(TaskWaiting.class::isInstance)
                    .map(TaskWaiting.class::cast).filter(w -> w.getTaskId().equals("intern-1")).reduce((a, b) -> b)
                    .orElseThrow();
            assertThat(held.getReason()).as("its max of 0 keeps it off every worker").contains("interns")
                    .contains("max");
            assertThat(journal.indexOf(journal.stream().filter(e -> e.getEvent() instanceof SharingPolicySet)
                    .reduce((a, b) -> b).orElseThrow())).as("the policy is in force before the tasks come")
                    .isLessThan(journal.indexOf(journal.stream().filter(e -> e.getEvent() instanceof TaskWaiting)
                            .findFirst().orElseThrow()));
        }
        assertThat(progress.toString(StandardCharsets.UTF_8))
                .contains("Sharing policy sent (2 tenant setting(s) and 1 pool setting(s))");
    }

    /** Every entry of the journal so far, each partition's in order. */
    private static List<JournalEntry> read(DevPlatform platform) {
        Topic<String, JournalEntry> topic = platform.scheduler().topics().journal();
        List<JournalEntry> entries = new ArrayList<>();
        try (KafkaConsumer<String, JournalEntry> consumer = new KafkaConsumer<>(
                KafkaClients.logReader(Map.of("bootstrap.servers", platform.bootstrapServers()),
                        KafkaClients.uniqueId("sharing-config-test")),
                topic.keySerde().deserializer(), topic.valueSerde().deserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic.name()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> entries.addAll(Journal.entries(r.value())));
            }
        }
        return entries;
    }
}
