package io.cronoq.scheduler.topology;

import io.cronoq.events.Priority;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * How long the index beside the tasks store takes to build, with {@code waiting} tasks waiting in
 * 20 lines (real RocksDB, 71-byte payloads): {@code reopen} is a clean restart (the store opens on
 * its checkpointed RocksDB and scans it once); {@code restore} is a store following the changelog
 * from its start in batches of 1,000 records, as a standby or a wiped owner does. Each iteration is
 * one whole build, timed once, the index keeping its default 256 entries of each line in memory and the
 * rest on disk. The setup prints the heap the index of the reopened store holds.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgs = {"-Xms4g", "-Xmx4g"})
@State(Scope.Benchmark)
public class IndexBenchmark {

    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
    private static final int BATCH = 1_000;

    @Param({"1000000"})
    public int waiting;

    private final Serde<TaskRecord> serde = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry())
            .serde(TaskRecord.class);
    private List<List<ConsumerRecord<byte[], byte[]>>> changelog;
    private File dir;
    private OpenedTaskStore opened;

    @Setup(Level.Trial)
    public void records() {
        changelog = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>(BATCH);
        byte[] payload = new byte[71];
        for (int i = 0; i < waiting; i++) {
            String id = "task-" + i;
            TaskSubmitted s = new TaskSubmitted(id, "p", Map.of("kind", "k" + (i % 20)), null, ByteBuffer.wrap(payload),
                    Priority.NORMAL, null, null, null, null, 30_000L, null, List.of(), null, T0, null, List.of(), List.of(), null, new java.util.ArrayList<>(), false, null);
            TaskRecord task = new TaskRecord(s, TaskState.WAITING, (long) i, new ArrayList<>(), null, T0, T0, 1_000L, null,
                    T0, 0, 0);
            byte[] key = StoreNames.taskKey("p", id).getBytes(StandardCharsets.UTF_8);
            batch.add(new ConsumerRecord<>("changelog", 0, i, key, serde.serializer().serialize("changelog", task)));
            if (batch.size() == BATCH) {
                changelog.add(batch);
                batch = new ArrayList<>(BATCH);
            }
        }
        if (!batch.isEmpty()) {
            changelog.add(batch);
        }
    }

    /** A fresh store for {@code restore}; for {@code reopen}, one that holds every record, already closed. */
    @Setup(Level.Iteration)
    public void store(org.openjdk.jmh.infra.BenchmarkParams params) throws IOException {
        dir = Files.createTempDirectory("cronoq-index-bench").toFile();
        opened = OpenedTaskStore.open(dir, serde, TimeRules.DEFAULT, false, IndexedTaskStore.DEFAULT_IN_MEMORY);
        if (params.getBenchmark().endsWith("reopen")) {
            changelog.forEach(opened.restore()::restoreBatch);
            opened.store().close();
        }
    }

    @TearDown(Level.Iteration)
    public void close(org.openjdk.jmh.infra.BenchmarkParams params) throws IOException {
        if (params.getBenchmark().endsWith("reopen")) {
            long withIndex = heapAfterGc();
            opened.store().close();
            long without = heapAfterGc();
            System.out.printf("%nindex of %,d waiting: %,d bytes of heap (%.0f B per waiting task)%n", waiting,
                    withIndex - without, (withIndex - without) / (double) waiting);
        } else {
            opened.store().close();
        }
        try (var files = Files.walk(dir.toPath())) {
            files.sorted(Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
        }
    }

    @Benchmark
    public long reopen() {
        opened = OpenedTaskStore.open(dir, serde, TimeRules.DEFAULT, false, IndexedTaskStore.DEFAULT_IN_MEMORY);
        return opened.index().pool("p").waiting().counts().size();
    }

    @Benchmark
    public long restore() {
        changelog.forEach(opened.restore()::restoreBatch);
        return opened.index().pool("p").waiting().counts().size();
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        String[] options = Arrays.stream(String.join(" ", args).trim().split("\\s+"))
                .filter(a -> !a.isEmpty()).toArray(String[]::new);
        new Runner(new OptionsBuilder()
                .parent(new CommandLineOptions(options))
                .include(IndexBenchmark.class.getName())
                .build()).run();
    }
}
