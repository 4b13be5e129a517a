package io.cronoq.scheduler.topology;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRecord;
import io.cronoq.events.AttemptRef;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRecord;
import io.cronoq.events.WorkerState;
import io.cronoq.schemas.codec.Codecs;
import io.cronoq.schemas.codec.ListDatumReader;
import io.cronoq.schemas.codec.RecordCodec;
import io.cronoq.schemas.events.Assignments;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The hot records written and read by their hand-written codec against Avro's own writer and reader, in
 * nanoseconds per record: a running task's record (one attempt), a journal record of a placement (the
 * submission, a wait, an assignment), an assignment, and the record of a busy worker (32 attempts held). The
 * bodies only, as the serde writes them after its header.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class CodecBenchmark {

    private static final Instant T0 = Instant.parse("2026-12-03T00:00:00Z");

    @Param({"task", "journal", "assignment", "worker"})
    public String record;

    private Object value;
    private byte[] bytes;
    private RecordCodec<Object> codec;
    private DatumWriter<Object> avroWriter;
    private DatumReader<Object> avroReader;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    private BinaryEncoder encoder;
    private BinaryDecoder decoder;

    @Setup
    @SuppressWarnings("unchecked")
    public void setUp() throws IOException {
        TaskSubmitted task = new TaskSubmitted("task-4711", "gpu-pool", Map.of("gpu", "a100", "region", "eu-west-1"),
                null, ByteBuffer.wrap(new byte[71]), Priority.NORMAL, null, null, null, null, 30_000L, null,
                List.of(), "ci", T0, "research", List.of(), List.of(), null, new java.util.ArrayList<>(), false, null);
        AttemptAssigned assigned = new AttemptAssigned("task-4711", "gpu-pool", 1, "worker-17", 3L,
                Map.of("gpu", "a100", "region", "eu-west-1"), ByteBuffer.wrap(new byte[71]), null, 30_000L, T0, null, null, new java.util.HashMap<>());
        value = switch (record) {
            case "task" -> new TaskRecord(task, TaskState.RUNNING, 4711L, new ArrayList<>(List.of(new AttemptRecord(1,
                    "worker-17", 3L, Map.of("gpu", "a100", "region", "eu-west-1"), T0, T0, null, null, null))),
                    null, T0, T0, 0L, null, null, 0, 0);
            case "journal" -> new JournalEntry("gpu-pool", T0, task, null, new ArrayList<>(List.of(
                    new JournalItem(new TaskWaiting("task-4711", "0/3 workers free"), null, null, null),
                    new JournalItem(assigned, null, null, null))), T0.plusMillis(3));
            case "assignment" -> Assignments.of(assigned);
            case "worker" -> busyWorker();
            default -> throw new IllegalArgumentException(record);
        };
        Class<Object> type = (Class<Object>) value.getClass();
        Schema schema = SpecificData.getForClass(type).getSchema(type);
        codec = Codecs.forType(type, schema).orElseThrow();
        avroWriter = new SpecificDatumWriter<>(schema, SpecificData.getForClass(type));
        avroReader = new ListDatumReader<>(schema, schema, ListDatumReader.readingModel(type));
        bytes = codecWrite();
    }

    private static WorkerRecord busyWorker() {
        List<AttemptRef> running = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            running.add(new AttemptRef("task-" + (4711 + i), 1, null, 0, new ArrayList<>()));
        }
        return new WorkerRecord("worker-17", "gpu-pool", Map.of("gpu", "a100", "region", "eu-west-1"), 32, null, 3L,
                WorkerState.ACTIVE, running, T0, 4711L, T0, null, null, null);
    }

    @Benchmark
    public byte[] codecWrite() throws IOException {
        out.reset();
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        codec.write(value, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Benchmark
    public byte[] avroWrite() throws IOException {
        out.reset();
        encoder = EncoderFactory.get().binaryEncoder(out, encoder);
        avroWriter.write(value, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    @Benchmark
    public Object codecRead() throws IOException {
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        return codec.read(decoder);
    }

    @Benchmark
    public Object avroRead() throws IOException {
        decoder = DecoderFactory.get().binaryDecoder(bytes, decoder);
        return avroReader.read(null, decoder);
    }

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        String[] options = Arrays.stream(String.join(" ", args).trim().split("\\s+"))
                .filter(a -> !a.isEmpty()).toArray(String[]::new);
        new Runner(new OptionsBuilder()
                .parent(new CommandLineOptions(options))
                .include(CodecBenchmark.class.getName())
                .build()).run();
    }
}
