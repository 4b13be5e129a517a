package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.Priority;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.RecordedPlaces;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.internals.RecordBatchingStateRestoreCallback;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tasks store's RocksDB keeps the index of waiting lines, timers and expiries that its records
 * give: built by one scan when it opens, and kept current by every restored batch, however often a
 * batch is replayed. Real RocksDB; the restore callback is called as Kafka Streams' changelog reader
 * calls it.
 */
class IndexedTaskStoreTest {

    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final TimeRules RULES = TimeRules.DEFAULT.withRetentionMs(60_000);

    private final Serde<TaskRecord> serde = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry())
            .serde(TaskRecord.class);

    @TempDir
    Path dir;

    private KeyValueStore<Bytes, byte[]> store;
    private RecordBatchingStateRestoreCallback restore;
    private long offset;

    @AfterEach
    void close() {
        if (store != null && store.isOpen()) {
            store.close();
        }
    }

    @Test
    void restoredBatchesBuildTheIndexAndAReplayedBatchChangesNothing() {
        open();
        List<ConsumerRecord<byte[], byte[]>> batch = List.of(
                record(inLine("a", 1)), record(delayed("b", 2)), record(finished("c", 3)), record(inLine("d", 4)));

        restore.restoreBatch(batch);
        List<String> once = describe();
        restore.restoreBatch(batch); // records beyond the checkpoint are read again after a crash

        assertThat(describe()).isEqualTo(once).containsExactly(
                "line kind=cpu " + place(inLine("a", 1)) + " a",
                "line kind=cpu " + place(inLine("d", 4)) + " d",
                "timer " + T0.plusSeconds(60).toEpochMilli() + " b",
                "expiry " + T0.plusSeconds(60).toEpochMilli() + " c");
    }

    @ParameterizedTest(name = "transactional stores: {0}")
    @ValueSource(booleans = {false, true})
    void aRecordReplacedOrDeletedInALaterBatchLeavesItsOldEntries(boolean transactional) {
        open(transactional);
        restore.restoreBatch(List.of(record(inLine("a", 1)), record(delayed("b", 2)), record(finished("c", 3))));
        if (transactional) {
            // Not committed yet: the next batch must still see these records to take out what they said.
            assertThat(store.approximateNumUncommittedBytes()).isPositive();
        }

        TaskRecord running = inLine("a", 1);
        running.setState(TaskState.RUNNING);
        // Within one batch: b joins its line, then is assigned; c is forgotten.
        TaskRecord bInLine = inLine("b", 2);
        TaskRecord bRunning = inLine("b", 2);
        bRunning.setState(TaskState.RUNNING);
        restore.restoreBatch(List.of(record(running), record(bInLine), record(bRunning), tombstone("c")));

        assertThat(describe()).isEmpty();
    }

    @Test
    void aReopenedStoreRebuildsItsIndexByOneScan() {
        open();
        restore.restoreBatch(List.of(record(inLine("a", 1)), record(delayed("b", 2)), record(finished("c", 3))));
        List<String> before = describe();
        store.close();
        assertThat(IndexedTaskStore.indexOf(store).pools()).as("closing forgets the index").isEmpty();

        open();

        assertThat(describe()).isEqualTo(before).hasSize(3);
    }

    @Test
    void aLineLongerThanTheEntriesKeptInMemoryGoesOnDiskAndComesBackWhole() {
        open();
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(record(inLine("t" + i, i + 1)));
        }
        restore.restoreBatch(batch);
        restore.restoreBatch(batch);
        List<String> restored = describe();

        PoolIndex index = IndexedTaskStore.indexOf(store).find("p");
        assertThat(index.lines().get("kind=cpu").spilled()).as("all but the four kept in memory").isEqualTo(46);
        assertThat(restored).hasSize(50).first().isEqualTo("line kind=cpu " + place(inLine("t0", 1)) + " t0");
        assertThat(restored).last().isEqualTo("line kind=cpu " + place(inLine("t49", 50)) + " t49");
        assertThat(index.waiting().counts()).isEqualTo(Map.of("kind=cpu", 50L));
        Path spill = dir.resolve(StoreNames.TASKS + ".index");
        assertThat(spill).isDirectory();

        store.close();
        assertThat(spill).as("closing deletes what the index spilled").doesNotExist();
        open();
        assertThat(describe()).isEqualTo(restored);
    }

    @ParameterizedTest(name = "transactional RocksDB: {0}")
    @ValueSource(booleans = {false, true})
    void itsPositionIsRocksDbsAndOneObjectNotACopyPerWrite(boolean transactional) {
        OpenedTaskStore opened = OpenedTaskStore.open(dir.toFile(), serde, RULES, transactional);
        store = opened.store();
        Position rocksAtOpen = rocks().getPosition();

        opened.context().setRecordMetadata("submissions", 2, 41);
        store.put(key("a"), value(inLine("a", 1)));
        opened.context().setRecordMetadata("completions", 2, 7);
        store.delete(key("a"));
        opened.context().setRecordMetadata("submissions", 2, 42);
        store.putAll(List.of(KeyValue.pair(key("b"), value(inLine("b", 2)))));
        opened.context().setRecordMetadata("submissions", 2, 99);
        store.putIfAbsent(key("b"), value(inLine("b", 3)));

        assertThat(rocksAtOpen.isEmpty()).as("a new store has seen nothing").isTrue();
        assertThat(store.getPosition())
                .as("what RocksDB says, a present key's putIfAbsent included")
                .isEqualTo(rocks().getPosition())
                .isEqualTo(Position.fromMap(Map.of("submissions", Map.of(2, 42L), "completions", Map.of(2, 7L))));
        assertThat(store.getPosition()).as("no copy per call").isSameAs(store.getPosition());
        assertThat(rocks().getPosition()).as("RocksDB's own is a copy").isNotSameAs(rocks().getPosition());
    }

    @SuppressWarnings("unchecked")
    private KeyValueStore<Bytes, byte[]> rocks() {
        return (KeyValueStore<Bytes, byte[]>) ((WrappedStateStore<?, ?, ?>) store).wrapped();
    }

    private static Bytes key(String taskId) {
        return Bytes.wrap(StoreNames.taskKey("p", taskId).getBytes(StandardCharsets.UTF_8));
    }

    private byte[] value(TaskRecord task) {
        return serde.serializer().serialize("changelog", task);
    }

    private void open() {
        open(false);
    }

    private void open(boolean transactional) {
        OpenedTaskStore opened = OpenedTaskStore.open(dir.toFile(), serde, RULES, transactional);
        store = opened.store();
        restore = opened.restore();
    }

    private List<String> describe() {
        List<String> out = new ArrayList<>();
        PoolIndex index = IndexedTaskStore.indexOf(store).find("p");
        if (index == null) {
            return out;
        }
        index.lines().forEach((line, entries) -> entries.entries().forEach(e -> out.add("line " + line + " " + e.getKey() + " "
                + e.getValue())));
        index.pendingTimers().forEach(t -> out.add("timer " + t.atMillis() + " " + t.taskId()));
        index.pendingExpiries().forEach(t -> out.add("expiry " + t.atMillis() + " " + t.taskId()));
        return out;
    }

    private static String place(TaskRecord task) {
        return RecordedPlaces.lineEntry(task).place().toString();
    }

    private ConsumerRecord<byte[], byte[]> record(TaskRecord task) {
        byte[] key = StoreNames.taskKey("p", task.getTask().getTaskId()).getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>("changelog", 0, offset++, key, serde.serializer().serialize("changelog", task));
    }

    private ConsumerRecord<byte[], byte[]> tombstone(String taskId) {
        byte[] key = StoreNames.taskKey("p", taskId).getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>("changelog", 0, offset++, key, null);
    }

    static TaskRecord inLine(String id, long sequence) {
        return new TaskRecord(submitted(id), TaskState.WAITING, sequence, new ArrayList<>(), null, T0, T0,
                1_000L, null, T0, 0, 0);
    }

    private static TaskRecord delayed(String id, long sequence) {
        return new TaskRecord(submitted(id), TaskState.WAITING, sequence, new ArrayList<>(), null, T0, T0,
                Long.MAX_VALUE, T0.plusSeconds(60), T0, 0, 0);
    }

    static TaskRecord finished(String id, long sequence) {
        return new TaskRecord(submitted(id), TaskState.SUCCEEDED, sequence, new ArrayList<>(), null, null, T0,
                Long.MAX_VALUE, null, null, 0, 0);
    }

    private static TaskSubmitted submitted(String id) {
        return new TaskSubmitted(id, "p", Map.of("kind", "cpu"), null, ByteBuffer.wrap(new byte[] {1}),
                Priority.NORMAL, null, null, null, null, 30_000L, null, List.of(), null, T0, null, List.of(), List.of(), null, new java.util.ArrayList<>(), false, null);
    }
}
