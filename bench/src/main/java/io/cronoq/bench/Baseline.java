package io.cronoq.bench;

import io.cronoq.scheduler.app.StreamClients;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Runs the {@link BaselineTopology} on the bench's broker with the scheduler's own Kafka Streams
 * settings (processing guarantee, commit interval, producer linger) and Kafka clients
 * ({@link StreamClients}), records as large as a task submission and keyed like one (by pool),
 * measured the way the scheduler is: drain throughput from
 * the moment it runs to the last output a {@code read_committed} reader sees, and latency at a steady rate
 * from the record's stamp to its output reaching that reader. Its drain has a size of its own, long enough to
 * reach its plateau whatever the scheduler's drain is.
 */
public final class Baseline {

    /**
     * A drain: {@code records} outputs in {@code seconds} from the moment the app ran; CPU ms of this JVM
     * per record over that time, whole and by {@link CpuSampler.Part} (null when not sampled); the baseline's
     * stream-thread metrics at its end; the output rate of the first and the last tenth of the records (close
     * to each other and to {@code perSecond} when the drain is long enough to be at its plateau).
     */
    public record DrainResult(long records, double seconds, double perSecond, Double cpuMsPerRecord,
                              Map<String, Double> cpuMsPerRecordByPart, Map<String, Double> threadMetrics,
                              double firstTenthPerSecond, double lastTenthPerSecond) {}

    /**
     * A steady rate: latency of the measured records, achieved output rate, the stream thread's metrics at its
     * end, and the cores this JVM kept busy over the measured seconds (null when not sampled).
     */
    public record RateResult(int rate, Latency.Summary latency, double perSecond, Map<String, Double> threadMetrics,
                             Double coresBusy, GcPauses.Summary gcPauses) {}

    private final String bootstrap;
    private final Properties streamsProps;
    private final String name;
    private final int partitions;
    private final int recordSize;
    private final Workload workload;
    private final Path stateRoot;
    private final CpuSampler cpu;
    private final GcPauses gc;
    private final Runnable beforeMeasuring;

    /**
     * @param streamsProps the scheduler's Kafka Streams properties (application id and state dir are replaced)
     * @param name         prefix of the baseline's topics and application ids, unique per run
     * @param recordSize   bytes per record value (at least 16)
     * @param cpu          this JVM's CPU sampler, or null
     * @param gc           this JVM's GC pauses, or null
     * @param beforeMeasuring run just before each measured part starts: the wait for the JIT to go quiet that the
     *                     scheduler's parts have too ({@link JitQuiet})
     */
    public Baseline(String bootstrap, Properties streamsProps, String name, int partitions, int recordSize,
                    Workload workload, Path stateRoot, CpuSampler cpu, GcPauses gc, Runnable beforeMeasuring) {
        this.bootstrap = bootstrap;
        this.streamsProps = streamsProps;
        this.name = name;
        this.partitions = partitions;
        this.recordSize = Math.max(2 * Long.BYTES, recordSize);
        this.workload = workload;
        this.stateRoot = stateRoot;
        this.cpu = cpu;
        this.gc = gc;
        this.beforeMeasuring = beforeMeasuring;
    }

    /** Pre-loads {@code records}, then starts the baseline and times the drain. */
    public DrainResult drain(long records, Duration timeout) {
        String input = name + "-drain-in";
        String output = name + "-drain-out";
        createTopics(input, output);
        try (KafkaProducer<String, byte[]> producer = BenchClients.producer(bootstrap)) {
            Pacer.burst(0, records, (i, stamp) -> producer.send(record(input, i, stamp)));
            producer.flush();
        }
        beforeMeasuring.run();
        Window outputs = new Window();
        Map<String, Double> metrics;
        long start;
        try (TopicTail tail = TopicTail.start(bootstrap, output, (r, now) -> outputs.add(now))) {
            Running app = start(input, output, "drain");
            start = System.nanoTime();
            try {
                Waits.until(() -> outputs.count() >= records, timeout, "the baseline to drain " + records + " records");
                checkTail(tail);
                metrics = StreamThreadMetrics.of(app.streams());
            } finally {
                app.close();
            }
        }
        // A small drain can be done before RUNNING is seen (it is polled): then it starts at the first output.
        start = Math.min(start, outputs.firstNanos());
        Double cpuMs = cpu == null ? null : cpu.cpuSecondsBetween(start, outputs.lastNanos()) * 1000 / outputs.count();
        Map<String, Double> cpuParts = cpu == null ? null
                : CpuSampler.perItemMs(cpu.cpuSecondsByPartBetween(start, outputs.lastNanos()), outputs.count());
        return new DrainResult(outputs.count(), (outputs.lastNanos() - start) / 1e9, outputs.perSecondSince(start), cpuMs,
                cpuParts, metrics, outputs.perSecondBetween(0, records / 10),
                outputs.perSecondBetween(records - records / 10, records - 1));
    }

    /** Starts the baseline, then sends at {@code rate}/s for warm-up + duration and measures the latter. */
    public RateResult rate(int rate, int warmupS, int durationS, Duration timeout) {
        String input = name + "-rate-in";
        String output = name + "-rate-out";
        createTopics(input, output);
        Latency latency = new Latency();
        Window measured = new Window();
        long warmup = (long) rate * warmupS;
        long total = warmup + (long) rate * durationS;
        Window all = new Window();
        long[] measureFrom = {Long.MAX_VALUE};
        Map<String, Double> metrics;
        Running app = start(input, output, "rate");
        try (KafkaProducer<String, byte[]> producer = BenchClients.producer(bootstrap);
             TopicTail tail = TopicTail.start(bootstrap, output, (r, now) -> {
                 all.add(now);
                 long stamp = ByteBuffer.wrap(r.value()).getLong(0);
                 if (stamp >= measureFrom[0]) {
                     latency.recordNanos(now - stamp);
                     measured.add(now);
                 }
             })) {
            beforeMeasuring.run();
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            measureFrom[0] = start + TimeUnit.SECONDS.toNanos(warmupS);
            Pacer.run(0, total, rate, start, measureFrom[0], (i, stamp) -> producer.send(record(input, i, stamp)));
            producer.flush();
            Waits.until(() -> all.count() >= total, timeout, "the baseline to pass " + total + " records at " + rate + "/s");
            checkTail(tail);
            metrics = StreamThreadMetrics.of(app.streams());
        } finally {
            app.close();
        }
        return new RateResult(rate, latency.summary(), measured.perSecond(), metrics,
                cpu == null ? null : cpu.coresBusyOver(measureFrom[0], durationS),
                gc == null ? null : gc.over(measureFrom[0], durationS));
    }

    private ProducerRecord<String, byte[]> record(String topic, long index, long stampNanos) {
        ByteBuffer value = ByteBuffer.allocate(recordSize);
        value.putLong(0, stampNanos).putLong(Long.BYTES, index);
        return new ProducerRecord<>(topic, workload.poolOfTask(index), value.array());
    }

    private Running start(String input, String output, String phase) {
        Properties props = new Properties();
        props.putAll(streamsProps);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, name + "-" + phase);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try {
            props.put(StreamsConfig.STATE_DIR_CONFIG,
                    Files.createDirectories(stateRoot.resolve("baseline-" + phase)).toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        KafkaStreams streams = new KafkaStreams(BaselineTopology.build(input, output), props, new StreamClients());
        streams.start();
        Running running = new Running(streams);
        try {
            Waits.running(streams, Duration.ofSeconds(120), "the baseline");
        } catch (RuntimeException e) {
            running.close();
            throw e;
        }
        return running;
    }

    private void createTopics(String... names) {
        try (Admin admin = BenchClients.admin(bootstrap)) {
            admin.createTopics(List.of(names).stream()
                    .map(n -> new NewTopic(n, Optional.of(partitions), Optional.empty())).toList()).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not create the baseline's topics: " + e.getCause().getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating the baseline's topics", e);
        }
    }

    private static void checkTail(TopicTail tail) {
        if (tail.failure() != null) {
            throw new IllegalStateException("reading the baseline's output failed", tail.failure());
        }
    }

    /** A started baseline app; closing it stops it and deletes its local state. */
    private record Running(KafkaStreams streams) implements AutoCloseable {
        @Override
        public void close() {
            streams.close(Duration.ofSeconds(30));
            streams.cleanUp();
        }
    }
}
