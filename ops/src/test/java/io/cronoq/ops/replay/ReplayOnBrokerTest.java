package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.schemas.events.Journal;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.kafka.LocalKafka;
import io.cronoq.ops.Cronoq;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code cronoq replay} and {@code cronoq simulate} on a journal a real scheduler wrote: a
 * scheduler runs a small workload on an in-JVM Kafka, is stopped, and the commands read what it
 * journaled. Inputs carry chosen record times (base + n s), each sent when its second comes (so the
 * scheduler hears it then), so every wait and run time is known:
 * cpu-1 (2 slots) and gpu-1 (gpu=a100, 1 slot); c1, c2, g1, g2 at 1 s (g2 waits for g1); all start
 * at 2 s; c3 at 3 s waits and is cancelled at 4 s; g1 succeeds at 5 s and g2 takes its slot
 * (starts 6 s, succeeds 12 s); c1 succeeds at 6 s; c2 fails at 8 s and its retry (no backoff)
 * runs at once (starts 9 s, succeeds 10 s).
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplayOnBrokerTest {

    private static final String POOL = "batch";
    private static final Map<String, String> GPU = Map.of("gpu", "a100");

    @TempDir
    static Path dir;

    private static LocalKafka kafka;
    private static String prefix;
    /**
     * Record time of the workload's second 0, just ahead of the start: each input is sent when its
     * second comes, so the scheduler hears it at its record time, as it would a live producer's, and
     * a simulation on the scheduler's clock sees the same times as the record.
     */
    private static Instant base;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    static void recordAWorkload() throws Exception {
        kafka = LocalKafka.start(dir.resolve("kafka"), LocalKafka.freePort(), LocalKafka.freePort());
        prefix = "replay-" + UUID.randomUUID().toString().substring(0, 8) + ".";
        base = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        try (RunningScheduler scheduler = RunningScheduler.on(kafka.bootstrapServers()).prefix(prefix)
                     .applicationId(prefix + "scheduler").stateDir(Files.createDirectories(dir.resolve("state")))
                     .partitions(2).neverEvict().start();
             Workload workload = new Workload(scheduler.topics(), kafka.bootstrapServers())) {
            workload.run();
        }
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void replayWritesOneTimelineRowPerAttemptWithWaitAndRunTimes() throws Exception {
        Path csv = dir.resolve("timeline.csv");

        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix, "--output",
                csv.toString());

        assertThat(code).as(err.toString()).isZero();
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.get(0)).startsWith("pool,task_id,task_labels,state,submitted_at,attempt,worker_id,group");
        assertThat(rows.subList(1, rows.size())).containsExactly(
                row("c1", "", "SUCCEEDED", 1, "cpu-1", "", 1, 1, 2, 6, "SUCCEEDED"),
                row("c2", "", "SUCCEEDED", 1, "cpu-1", "", 1, 1, 2, 8, "FAILED"),
                row("c2", "", "SUCCEEDED", 2, "cpu-1", "", 8, 8, 9, 10, "SUCCEEDED"),
                row("g1", "gpu=a100", "SUCCEEDED", 1, "gpu-1", "gpu=a100", 1, 1, 2, 5, "SUCCEEDED"),
                row("g2", "gpu=a100", "SUCCEEDED", 1, "gpu-1", "gpu=a100", 1, 5, 6, 12, "SUCCEEDED"),
                String.join(",", POOL, "c3", "", "CANCELLED", at(3), "", "", "", at(3), "", "", "", "", "", "", ""));
    }

    @Test
    void replayAsJsonLinesHasOneObjectPerTask() throws Exception {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix, "--format", "jsonl",
                "--no-progress");

        assertThat(code).as(err.toString()).isZero();
        List<String> lines = out.toString().lines().toList();
        assertThat(lines).hasSize(5);
        JsonNode g2 = new ObjectMapper().readTree(lines.get(3));
        assertThat(g2.get("taskId").asText()).isEqualTo("g2");
        assertThat(g2.get("attempts").get(0).get("waitMs").asLong()).isEqualTo(4_000);
        assertThat(g2.get("attempts").get(0).get("runMs").asLong()).isEqualTo(6_000);
    }

    @Test
    void replayFromATimeLeavesOutTheTasksSubmittedBefore() {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix,
                "--from", base.plusMillis(2_500).toString());

        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString().lines().skip(1)).singleElement().asString().startsWith("batch,c3,,CANCELLED,");
    }

    @Test
    void progressShowsEntriesReadOfTheTotalWhenAskedFor() {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix, "--progress");

        assertThat(code).as(err.toString()).isZero();
        assertThat(err.toString()).contains("journal [").contains("100.0%").containsPattern("(\\d+) / \\1 records");
    }

    @Test
    void replayAtAMidPointShowsFullGroupsAndTheQueue() throws Exception {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix,
                "--at", base.plusMillis(3_500).toString(), "--json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode state = new ObjectMapper().readTree(out.toString());
        JsonNode pool = state.get("pools").get(0);
        assertThat(pool.get("pool").asText()).isEqualTo(POOL);
        assertThat(pool.get("capacity").asInt()).isEqualTo(3);
        assertThat(pool.get("busy").asInt()).isEqualTo(3);
        assertThat(pool.get("waiting").asInt()).isEqualTo(2);
        assertThat(state.get("groups").get(1).get("labels").get("gpu").asText()).isEqualTo("a100");
        assertThat(state.get("groups").get(1).get("waiting").asInt()).as("g2 and c3 could run there").isEqualTo(2);
        assertThat(state.get("queues").get(POOL)).extracting(q -> q.get("taskId").asText()).containsExactly("g2", "c3");
        assertThat(state.get("queues").get(POOL).get(0).get("waitedMs").asLong()).isEqualTo(2_500);
    }

    @Test
    void replayAtPrintsATableByDefault() {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix,
                "--at", base.plusMillis(3_500).toString());

        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Queue of batch (2 waiting").containsPattern("g2\\s+gpu=a100\\s+0");
    }

    @Test
    void simulateWithNoChangeReproducesTheRecordedPlacements() throws Exception {
        int code = run("simulate", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix, "--json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode report = new ObjectMapper().readTree(out.toString());
        assertThat(report.get("reproduced").asBoolean()).isTrue();
        JsonNode pool = report.get("pools").get(0);
        assertThat(pool.get("recordedAttempts").asInt()).isEqualTo(5);
        assertThat(pool.get("placedAsRecorded").asInt()).isEqualTo(5);
    }

    @Test
    void simulateWithAnotherA100WorkerTakesTheWaitOutOfTheA100Group() throws Exception {
        int code = run("simulate", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix,
                "--add-workers", "batch:gpu=a100:1x1", "--json");

        assertThat(code).as(err.toString()).isZero();
        JsonNode report = new ObjectMapper().readTree(out.toString());
        JsonNode gpu = report.get("groups").get(1);
        assertThat(gpu.get("labels").get("gpu").asText()).isEqualTo("a100");
        assertThat(gpu.get("recorded").get("maxMs").asLong()).isEqualTo(4_000);
        assertThat(gpu.get("simulated").get("maxMs").asLong()).isZero();
        assertThat(report.get("reproduced").asBoolean()).isFalse();
    }

    @Test
    void simulatePrintsRecordedAndSimulatedPercentilesPerGroup() {
        int code = run("simulate", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix);

        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("every placement reproduced")
                .containsPattern("batch\\s+gpu=a100\\s+recorded\\s+2\\s+0ms\\s+4s\\s+4s\\s+4s");
    }

    @Test
    void simulateNamingAPoolTheJournalLacksExitsWithTwo() {
        int code = run("simulate", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", prefix,
                "--add-workers", "nope:gpu=a100:1x1");

        assertThat(code).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--add-workers").contains("nope").contains("[batch]");
    }

    @Test
    void replayOfAPrefixWithNoJournalExitsWithTwo() {
        int code = run("replay", "--bootstrap", kafka.bootstrapServers(), "--topic-prefix", "nothing-here.");

        assertThat(code).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("nothing-here.journal").contains("--topic-prefix");
    }

    private int run(String... args) {
        CommandLine cli = Cronoq.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private static String at(int second) {
        return base.plusSeconds(second).toString();
    }

    private static String row(String task, String labels, String state, int attempt, String worker, String group,
                              int ready, int assigned, int started, int finished, String outcome) {
        return String.join(",", POOL, task, labels, state, at(1), String.valueOf(attempt), worker, group, at(ready),
                at(assigned), at(started), at(finished), String.valueOf((assigned - ready) * 1000L),
                String.valueOf((finished - started) * 1000L), outcome, "");
    }

    /** Produces the inputs with chosen record times and waits for each decision they cause. */
    private static final class Workload implements AutoCloseable {
        private final Topics topics;
        private final KafkaProducer<String, byte[]> producer;
        private final KafkaConsumer<String, JournalEntry> journal;
        private final List<JournalEntry> seen = new ArrayList<>();

        Workload(Topics topics, String bootstrap) {
            this.topics = topics;
            this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer());
            this.journal = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG, topics.prefix() + "reader",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                    topics.journal().keySerde().deserializer(), topics.journal().valueSerde().deserializer());
            journal.subscribe(List.of(topics.journal().name()));
        }

        void run() {
            send(0, register("cpu-1", Map.of(), 2));
            send(0, register("gpu-1", GPU, 1));
            awaitJournal(e -> e instanceof WorkerAccepted, 2);
            send(1, submit("c1", Map.of()));
            send(1, submit("c2", Map.of()));
            send(1, submit("g1", GPU));
            send(1, submit("g2", GPU));
            awaitJournal(e -> e instanceof AttemptAssigned, 3);
            awaitJournal(e -> e instanceof TaskWaiting w && w.getTaskId().equals("g2"), 1);
            AttemptAssigned c1 = assigned("c1", 1);
            AttemptAssigned c2 = assigned("c2", 1);
            AttemptAssigned g1 = assigned("g1", 1);
            send(2, started(c1));
            send(2, started(c2));
            send(2, started(g1));
            awaitJournal(e -> e instanceof AttemptStarted, 3);
            send(3, submit("c3", Map.of()));
            awaitJournal(e -> e instanceof TaskWaiting w && w.getTaskId().equals("c3"), 1);
            send(4, TaskCancelRequested.newBuilder().setTaskId("c3").setPool(POOL).setRequestedAt(base.plusSeconds(4))
                    .build());
            awaitJournal(e -> e instanceof TaskCancelled, 1);
            send(5, succeeded(g1, 5));
            AttemptAssigned g2 = awaitAssigned("g2", 1);
            send(6, succeeded(c1, 6));
            send(6, started(g2));
            awaitJournal(e -> e instanceof AttemptStarted, 4);
            send(8, AttemptFailed.newBuilder().setTaskId("c2").setPool(POOL).setAttempt(1).setWorkerId(c2.getWorkerId())
                    .setGeneration(c2.getGeneration()).setAt(base.plusSeconds(8)).setError("exit code 1")
                    .setRetryable(true).build());
            AttemptAssigned c2again = awaitAssigned("c2", 2);
            send(9, started(c2again));
            awaitJournal(e -> e instanceof AttemptStarted, 5);
            send(10, succeeded(c2again, 10));
            awaitJournal(e -> e instanceof TaskFinished, 4);
            send(12, succeeded(g2, 12));
            awaitJournal(e -> e instanceof TaskFinished, 5);
        }

        private WorkerRegistered register(String id, Map<String, String> labels, int slots) {
            return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setLabels(labels).setSlots(slots)
                    .setRegisteredAt(base).build();
        }

        private TaskSubmitted submit(String id, Map<String, String> labels) {
            TaskSubmitted.Builder task = TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(labels)
                    .setSubmittedAt(base.plusSeconds(id.equals("c3") ? 3 : 1));
            if (id.equals("c2")) {
                // Retried at once: a backoff would be ended by a tick on the wall clock, not on the record times.
                task.setRetry(RetryPolicy.newBuilder().setInitialBackoffMs(0).build());
            }
            return task.build();
        }

        private AttemptStarted started(AttemptAssigned a) {
            long second = Duration.between(base, a.getAssignedAt()).toSeconds() + 1;
            return AttemptStarted.newBuilder().setTaskId(a.getTaskId()).setPool(POOL).setAttempt(a.getAttempt())
                    .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(base.plusSeconds(second))
                    .build();
        }

        private AttemptSucceeded succeeded(AttemptAssigned a, int second) {
            return AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(POOL).setAttempt(a.getAttempt())
                    .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(base.plusSeconds(second))
                    .build();
        }

        private void send(int second, SpecificRecord event) {
            long wait = base.plusSeconds(second).toEpochMilli() - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for second " + second, e);
                }
            }
            String name = event.getSchema().getName();
            String topic;
            byte[] value;
            if (name.startsWith("Task")) {
                topic = topics.submissions().name();
                value = topics.submissions().valueSerde().serializer().serialize(topic, new SubmissionEvent(event));
            } else if (name.startsWith("Worker")) {
                topic = topics.workers().name();
                value = topics.workers().valueSerde().serializer().serialize(topic, new WorkerEvent(event));
            } else {
                topic = topics.completions().name();
                value = topics.completions().valueSerde().serializer().serialize(topic, new CompletionEvent(event));
            }
            try {
                producer.send(new ProducerRecord<>(topic, null, base.plusSeconds(second).toEpochMilli(), POOL, value))
                        .get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("could not send " + event, e);
            }
        }

        private void awaitJournal(Predicate<Object> match, int count) {
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                journal.poll(Duration.ofMillis(200)).forEach(r -> seen.addAll(Journal.entries(r.value())));
                return seen.stream().map(JournalEntry::getEvent).filter(match).count() >= count;
            });
        }

        private AttemptAssigned awaitAssigned(String taskId, int attempt) {
            awaitJournal(e -> e instanceof AttemptAssigned a && a.getTaskId().equals(taskId)
                    && a.getAttempt() == attempt, 1);
            return assigned(taskId, attempt);
        }

        private AttemptAssigned assigned(String taskId, int attempt) {
            return seen.stream().map(JournalEntry::getEvent)
                    .filter(e -> e instanceof AttemptAssigned a && a.getTaskId().equals(taskId) && a.getAttempt() == attempt)
                    .map(AttemptAssigned.class::cast).findFirst().orElseThrow();
        }

        @Override
        public void close() {
            producer.close();
            journal.close();
        }
    }
}
