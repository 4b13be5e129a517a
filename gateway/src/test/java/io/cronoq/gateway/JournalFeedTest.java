package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.query.TaskFilter;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The gateway's one journal consumer feeds the counters and the history, each from its own start:
 * the counters what is written after the gateway started, the history everything from (now − its
 * length), which the feed reads again; the dead letters from their topic's beginning. No broker:
 * a mock consumer holds the topics.
 */
class JournalFeedTest {

    private static final String POOL = "inference";
    private static final Instant NOW = Instant.parse("2026-01-01T11:00:00Z");

    private final Topics topics = Topics.defaults(new InMemorySchemaRegistry());
    private final TopicPartition journal = new TopicPartition(topics.journal().name(), 0);
    private final TopicPartition letters = new TopicPartition(topics.deadLetters().name(), 0);

    @Test
    void theCountersStartAtTheGatewaysStartAndTheHistoryAtItsOwn() throws Exception {
        List<ConsumerRecord<String, byte[]>> log = List.of(
                record(0, submitted("before-the-history", "2026-01-01T09:59:00Z")),
                record(1, submitted("before-the-gateway", "2026-01-01T10:30:00Z")),
                record(2, submitted("after-the-gateway", "2026-01-01T10:59:30Z")),
                new ConsumerRecord<>(letters.topic(), 0, 0L, "key", new byte[] {1}));
        MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest") {
            /** As a log: every poll has every record from the position on (the mock forgets what it returned). */
            @Override
            public synchronized ConsumerRecords<String, byte[]> poll(Duration timeout) {
                log.forEach(this::addRecord);
                return super.poll(timeout);
            }

            /** The first record at or after 10:00, the history's start, is at offset 1. */
            @Override
            public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                    Map<TopicPartition, Long> times) {
                return Map.of(journal, new OffsetAndTimestamp(1, times.get(journal)));
            }
        };
        consumer.updatePartitions(journal.topic(), List.of(new PartitionInfo(journal.topic(), 0, null, null, null)));
        consumer.updatePartitions(letters.topic(), List.of(new PartitionInfo(letters.topic(), 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(journal, 0L, letters, 0L));
        consumer.updateEndOffsets(Map.of(journal, 2L, letters, 1L)); // offsets 0 and 1 were there before the start
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JournalMeter meter = new JournalMeter(registry, () -> Set.of(0, 1, 2, 3, 4, 5), () -> 6);
        JournalHistory history = new JournalHistory(60);
        AtomicInteger baselines = new AtomicInteger();

        try (JournalFeed feed = new JournalFeed(consumer, topics, meter, history, new EmptyStores(baselines),
                Clock.fixed(NOW, ZoneOffset.UTC)).start()) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (waiting(history) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(waiting(history)).as("the two tasks submitted since 10:00, not the one before").isEqualTo(2);
            assertThat(baselines).as("the stores did not answer the first time: asked again").hasValue(2);
            assertThat(registry.get("cronoq.submissions").tag("pool", POOL).counter().count())
                    .as("only the submission written after the gateway started, though the history read two")
                    .isEqualTo(1.0);
            assertThat(registry.get("cronoq.dead.letters").gauge().value()).isEqualTo(1.0);
        }
        assertThat(consumer.closed()).isTrue();
    }

    private static long waiting(JournalHistory history) {
        try {
            List<Long> waiting = history.history(POOL, 1, NOW).orElseThrow().total().waiting();
            return waiting.get(waiting.size() - 1);
        } catch (ApiException | java.util.NoSuchElementException notYet) {
            return -1;
        }
    }

    private ConsumerRecord<String, byte[]> record(long offset, JournalEntry entry) {
        byte[] value = topics.journal().valueSerde().serializer().serialize(journal.topic(), entry);
        return new ConsumerRecord<>(journal.topic(), 0, offset, entry.getPool(), value);
    }

    private static JournalEntry submitted(String taskId, String at) {
        Instant time = Instant.parse(at);
        TaskSubmitted task = TaskSubmitted.newBuilder().setTaskId(taskId).setPool(POOL).setLabels(Map.of())
                .setPayload(ByteBuffer.allocate(0)).setSubmittedAt(time).build();
        return new JournalEntry(POOL, time, task, null);
    }

    /** Stores with no workers and no waiting tasks, that do not answer the first time they are asked. */
    private record EmptyStores(AtomicInteger asked) implements StateReader {

        @Override
        public List<WorkerView> workers(String pool) {
            if (asked.incrementAndGet() == 1) {
                throw ApiException.unavailable("restoring", null);
            }
            return List.of();
        }

        @Override
        public TaskPage tasks(TaskFilter filter) {
            return new TaskPage(List.of(), null);
        }

        @Override
        public Optional<TaskView> task(String id, String pool) {
            return Optional.empty();
        }

        @Override
        public SnapshotView snapshot() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<PoolView> pool(String pool) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Readiness readiness() {
            return new Readiness(true, "RUNNING", null);
        }
    }
}
