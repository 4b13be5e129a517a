package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The assignments reader on Kafka's in-memory consumer: it compares each record's key bytes with the ids of its
 * workers and decodes only their records, so another worker's record — even one that would not decode — is skipped
 * silently, while a record of its own worker that does not decode is logged and skipped as before; a record's events
 * are handed on one by one.
 */
// Alone: it reads what the agent logs, which other classes running beside it would add to.
@Isolated
@Timeout(30)
class AssignmentReaderTest {

    private static final String TOPIC = "t.assignments";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);
    private static final String LOCAL = "w-local";
    private static final String OTHER = "w-other";
    private static final byte[] GARBAGE = {1, 2, 3, 4, 5, 6, 7};

    private final Topics topics = Topics.withPrefix("t.", new InMemorySchemaRegistry());
    private final MockConsumer<byte[], byte[]> consumer = new PacedConsumer();
    /** The values the reader asked to decode, in order. */
    private final List<byte[]> decoded = new CopyOnWriteArrayList<>();
    private final Deserializer<AssignmentEvent> countingValues = new Deserializer<>() {
        @Override
        public AssignmentEvent deserialize(String topic, byte[] data) {
            decoded.add(data);
            return topics.assignments().valueSerde().deserializer().deserialize(topic, data);
        }
    };
    private final InMemoryOffsets offsets = new InMemoryOffsets();
    private final AssignmentReader reader = new AssignmentReader(consumer, countingValues, offsets, TOPIC, "app");
    private final List<AssignmentEvent> handled = new CopyOnWriteArrayList<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger readerLog = (Logger) LoggerFactory.getLogger(AssignmentReader.class);

    @AfterEach
    void stop() {
        reader.stop(Duration.ofSeconds(5));
        readerLog.detachAppender(logs);
    }

    @Test
    void anotherWorkersRecordIsSkippedUndecodedAndOnlyItsOwnGarbageIsReported() throws Exception {
        startReading(handled::add);

        byte[] first = encoded(revoked("t1"));
        byte[] second = encoded(revoked("t2"));
        byte[] localGarbage = GARBAGE.clone();
        add(0, OTHER, GARBAGE.clone());
        add(1, LOCAL, first);
        add(2, LOCAL, localGarbage);
        add(3, OTHER, encoded(revoked("not-mine")));
        add(4, LOCAL, second);

        await().until(() -> handled.size() == 2);
        assertThat(handled).extracting(e -> ((AttemptRevoked) e.getEvent()).getTaskId()).containsExactly("t1", "t2");
        assertThat(decoded).as("only the local worker's values were decoded")
                .containsExactly(first, localGarbage, second);
        assertThat(decoded.get(1)).isSameAs(localGarbage);
        assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .as("the other worker's garbage is skipped silently; the local one is reported")
                .singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.ERROR);
                    assertThat(e.getFormattedMessage())
                            .isEqualTo("Skipping a record of t.assignments-0 at offset 2 that does not decode");
                });

        reader.leave(LOCAL, Duration.ofSeconds(5));
        assertThat(offsets.committed).as("its progress covers every record of its partition").containsEntry(LOCAL, 5L);
    }

    @Test
    void aRecordOfSeveralEventsIsHandledEventByEventAndOneThatFailsDoesNotStopTheRest() throws Exception {
        startReading(event -> {
            if (((AttemptRevoked) event.getEvent()).getTaskId().equals("t2")) {
                throw new IllegalStateException("boom");
            }
            handled.add(event);
        });

        add(0, LOCAL, topics.assignments().valueSerde().serializer().serialize(TOPIC,
                new AssignmentEvent(revoked("t1"), List.of(revoked("t2"), revoked("t3")))));
        add(1, LOCAL, encoded(revoked("t4")));

        await().until(() -> handled.size() == 3);
        assertThat(handled).as("each handed on alone, in order")
                .allSatisfy(e -> assertThat(e.getMore()).isEmpty())
                .extracting(e -> ((AttemptRevoked) e.getEvent()).getTaskId()).containsExactly("t1", "t3", "t4");
        assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage())
                        .isEqualTo("Handling AttemptRevoked at t.assignments-0 offset 0 failed; it is skipped"));
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** Starts the reader on one partition, with the local worker joined from offset 0 and the logs captured. */
    private void startReading(java.util.function.Consumer<AssignmentEvent> handler) throws InterruptedException {
        logs.start();
        readerLog.addAppender(logs);
        consumer.updatePartitions(TOPIC, List.of(new PartitionInfo(TOPIC, 0, null, null, null)));
        offsets.committed.put(LOCAL, 0L);
        CountDownLatch ready = new CountDownLatch(1);
        Threads.named("test-assignments").newThread(reader).start();
        reader.join(LOCAL, handler, ready::countDown);
        assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private void add(long offset, String key, byte[] value) {
        consumer.addRecord(new ConsumerRecord<>(TOPIC, 0, offset, key.getBytes(StandardCharsets.UTF_8), value));
    }

    private byte[] encoded(Object event) {
        return topics.assignments().valueSerde().serializer().serialize(TOPIC, Assignments.of(event));
    }

    private static AttemptRevoked revoked(String taskId) {
        return new AttemptRevoked(taskId, "inference", 1, LOCAL, 1L, "cancelled", Instant.EPOCH);
    }

    /** Kafka's in-memory consumer, pausing briefly on an empty poll as a real one waits for records. */
    private static final class PacedConsumer extends MockConsumer<byte[], byte[]> {
        PacedConsumer() {
            super("none");
        }

        @Override
        public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            if (records.isEmpty()) {
                try {
                    TimeUnit.MILLISECONDS.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return records;
        }
    }

    /** Committed offsets in memory, on the one partition of the test. */
    private static final class InMemoryOffsets implements CommittedOffsets {
        final Map<String, Long> committed = new ConcurrentHashMap<>();

        @Override
        public Long committed(String workerId, TopicPartition partition, Duration timeout) {
            return partition.equals(PARTITION) ? committed.get(workerId) : null;
        }

        @Override
        public CompletableFuture<Void> commit(String workerId, TopicPartition partition, long offset) {
            committed.put(workerId, offset);
            return CompletableFuture.completedFuture(null);
        }
    }
}
