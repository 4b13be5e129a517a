package io.cronoq.scheduler.app;

import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.events.Journal;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * On a real broker, exactly-once and at-least-once, the journal's records hold what a pool's inputs caused between two
 * commits: far fewer records than inputs, each entry still with the times of the input that caused
 * it, each record stamped with the latest of them.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JournalPerCommitTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "batch";
    private static final int TASKS = 20;

    @Test
    void aRecordHoldsTheEntriesOfEveryInputOfACommitEachWithItsInputsTimes() {
        journalOfACommit("exactly_once_v2");
    }

    @Test
    void underAtLeastOnceTooARecordHoldsTheEntriesOfEveryInputOfACommit() {
        // Kafka Streams flushes before it commits offsets under at-least-once too: the records go out then.
        journalOfACommit("at_least_once");
    }

    private void journalOfACommit(String guarantee) {
        // A long commit interval, so the inputs below fall into one or two commits.
        try (RunningScheduler scheduler = RunningScheduler.on(broker).name("per-commit").neverEvict()
                .set(SchedulerConfig.PROCESSING_GUARANTEE, guarantee)
                .set(SchedulerConfig.COMMIT_INTERVAL_MS, "2000").start();
             KafkaConsumer<String, JournalEntry> journal = new KafkaConsumer<>(
                     broker.consumerProps(broker.uniqueName("journal")),
                     scheduler.topics().journal().keySerde().deserializer(),
                     scheduler.topics().journal().valueSerde().deserializer())) {
            journal.subscribe(List.of(scheduler.topics().journal().name()));
            // Stamped an hour back, a second apart: each input's time differs from the others' and from
            // the scheduler's clock, so every entry shows whose times it carries.
            long t0 = Instant.now().minus(Duration.ofHours(1)).toEpochMilli();
            scheduler.inputs().send(POOL, register("w1", POOL, Map.of(), 4), t0 - 1_000);
            for (int i = 0; i < TASKS; i++) {
                scheduler.inputs().send(POOL, submit("t" + i, POOL), t0 + i * 1_000L);
            }

            List<ConsumerRecord<String, JournalEntry>> records = new ArrayList<>();
            List<JournalEntry> entries = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                journal.poll(Duration.ofMillis(200)).forEach(r -> {
                    records.add(r);
                    entries.addAll(Journal.entries(r.value()));
                });
                return entries.stream().filter(e -> e.getEvent() instanceof TaskSubmitted).count() == TASKS;
            });

            assertThat(records).as("%d inputs, journaled in a few records", TASKS + 1).hasSizeLessThan(8);
            for (JournalEntry e : entries) {
                String task = Journal.taskId(e.getEvent());
                if (e.getEvent() instanceof TaskSubmitted || e.getEvent() instanceof AttemptAssigned) {
                    // each task's submission is the input that caused its entries (4 slots: t0..t3 start at once)
                    long at = t0 + Integer.parseInt(task.substring(1)) * 1_000L;
                    assertThat(e.getAt()).as("at of %s of %s", e.getEvent().getClass().getSimpleName(), task)
                            .isEqualTo(Instant.ofEpochMilli(at));
                    assertThat(e.getHeardAt()).as("heardAt of %s", task).isAfter(e.getAt().plus(Duration.ofMinutes(30)));
                }
            }
            assertThat(entries.stream().filter(e -> e.getEvent() instanceof AttemptAssigned)
                    .map(e -> Journal.taskId(e.getEvent()))).containsExactly("t0", "t1", "t2", "t3");
            for (ConsumerRecord<String, JournalEntry> r : records) {
                long latest = Journal.entries(r.value()).stream().mapToLong(e -> e.getAt().toEpochMilli()).max()
                        .orElseThrow();
                assertThat(r.timestamp()).as("a record's timestamp: its latest entry's at").isEqualTo(latest);
            }
        }
    }
}
