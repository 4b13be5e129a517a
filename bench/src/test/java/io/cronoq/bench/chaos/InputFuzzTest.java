package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.bench.JournalWatcher;
import io.cronoq.bench.SimulatedWorkers;
import io.cronoq.bench.chaos.Garbage.DeadLettered;
import io.cronoq.bench.chaos.Garbage.Rejected;
import io.cronoq.bench.chaos.Garbage.RejectedForPool;
import io.cronoq.bench.chaos.Garbage.RejectedOrAccepted;
import io.cronoq.bench.chaos.Garbage.RejectedOrSucceeded;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Garbage on every input topic during a steady load of valid tasks: undecodable bytes of every kind,
 * valid Avro of the wrong type, and absurd values (see {@link GarbageMaker}). Each lands in the dead
 * letters with its coordinates or is rejected with a reason ({@code InputRejected} in the journal) —
 * or, where the rules allow an absurd value, is handled as the valid input it is; the scheduler keeps
 * running on its original stream thread; every valid task finishes exactly once.
 */
@Tag("integration")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class InputFuzzTest {

    private static final Logger log = LoggerFactory.getLogger(InputFuzzTest.class);
    private static final int PARTITIONS = 2;

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path stateDir;

    @Test
    void garbageOnEveryInputIsDeadLetteredOrRejectedWhileTheSchedulerKeepsServingValidTasks() throws Exception {
        String run = "fuzz-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        List<String> pools = List.of(run + "-a", run + "-b");
        try (RunningScheduler scheduler = start(run);
             SchemaRegistry registry = SchedulerApp.registry(scheduler.config())) {
            SchedulerApp app = scheduler.app();
            Topics topics = app.topics();
            Set<String> threads = threadNames(app.streams());
            GarbageMaker maker = new GarbageMaker(topics, pools.get(0), run + "-bad", 42);
            List<WorkerRegistered> fleet = new ArrayList<>(ChaosRun.fleet(run, pools, 4, 4));
            // Registered through the simulated workers, so that if it is accepted it serves tasks like any other.
            fleet.add(maker.workerWithManyLabels());

            try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 20);
                 JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry);
                 KafkaProducer<String, byte[]> producer = garbageProducer(bootstrap, 1024 * 1024);
                 SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 40)) {
                workers.register(fleet);
                await().atMost(Duration.ofSeconds(60)).until(() -> journal.succeeded().count() >= 20);

                Map<Garbage, RecordMetadata> written = new HashMap<>();
                for (Garbage g : maker.all()) {
                    written.put(g, producer.send(new ProducerRecord<>(g.topic(), g.key(), g.value())).get());
                }
                // 10 MB: the producer refuses it before it leaves (max.request.size 1 MB), so the scheduler never sees it.
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topics.submissions().name(), pools.get(0),
                        maker.taskWithPayload("ten-megabytes", 10 * 1024 * 1024))).get())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RecordTooLargeException.class);

                await().atMost(Duration.ofSeconds(60)).until(() -> journal.succeeded().count() >= 60);
                load.stop();
                List<String> valid = load.submitted();
                Set<String> mayFinish = new HashSet<>(valid);
                // Absurd but valid tasks may run: the 10,000-label task finds the 10,000-label worker.
                for (Garbage g : maker.all()) {
                    if (g.expect() instanceof RejectedOrSucceeded r) {
                        mayFinish.add(r.taskId());
                    }
                }
                // Absurd but valid tasks finish too, so count by id, not by number.
                Outcome outcome = await("every valid task finishes").atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofSeconds(1))
                        .until(() -> Outcome.read(bootstrap, topics), o -> o.succeeded().containsAll(valid));
                assertThat(outcome.processingFailures()).as("inputs the scheduler failed to process (a scheduler bug)")
                        .isEmpty();
                for (Map.Entry<Garbage, RecordMetadata> e : written.entrySet()) {
                    outcome.check(e.getKey(), e.getValue());
                }
                WorkerRegistered manyLabels = maker.workerWithManyLabels();
                outcome.check(new Garbage("a worker claiming 10,000 labels", topics.workers().name(),
                        manyLabels.getPool(), null, new RejectedOrAccepted(manyLabels.getWorkerId())), null);
                assertThat(outcome.succeeded()).as("valid tasks: each finished exactly once")
                        .containsAll(valid).doesNotHaveDuplicates();
                assertThat(mayFinish).as("nothing else finished").containsAll(outcome.succeeded());
            }
            assertThat(app.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(threadNames(app.streams())).as("no stream thread died and was replaced").isEqualTo(threads);
        }
    }

    /**
     * A task the broker accepts but whose outputs (journal entry, store changelog record, dead letter)
     * would be larger than the scheduler's producer may send ({@code max.request.size}, 1 MB). This test
     * found that such a task stopped its partition for good (the thread died, was replaced, re-read the
     * record, forever). Now the payload rule (at most 512 KiB) rejects it, dead letters keep at most
     * 256 KiB of an input's bytes, and an output Kafka still refuses is logged and skipped. Two ways in:
     * a 10 MB task on a submissions topic whose {@code max.message.bytes} was raised, and — with every
     * limit at its default — the largest task the producer and the broker accept.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"10 MB, topic limit raised", "at the default 1 MB limit"})
    void aTaskTooLargeForTheSchedulersOutputsDoesNotStopItsPool(String variant) throws Exception {
        boolean raised = variant.startsWith("10 MB");
        String run = "fuzzbig-" + UUID.randomUUID().toString().substring(0, 6);
        String bootstrap = broker.bootstrapServers();
        List<String> pools = List.of(run + "-a", run + "-b");
        RunningScheduler scheduler = start(run);
        SchedulerApp app = scheduler.app();
        try (SchemaRegistry registry = SchedulerApp.registry(scheduler.config())) {
            Topics topics = app.topics();
            Set<String> threads = threadNames(app.streams());
            if (raised) {
                try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                    ConfigResource submissions = new ConfigResource(ConfigResource.Type.TOPIC, topics.submissions().name());
                    admin.incrementalAlterConfigs(Map.of(submissions, List.of(new AlterConfigOp(new ConfigEntry(
                            TopicConfig.MAX_MESSAGE_BYTES_CONFIG, String.valueOf(12 * 1024 * 1024)),
                            AlterConfigOp.OpType.SET)))).all().get();
                }
            }
            GarbageMaker maker = new GarbageMaker(topics, pools.get(0), run + "-bad", 7);
            List<WorkerRegistered> fleet = new ArrayList<>(ChaosRun.fleet(run, pools, 4, 4));
            try (SimulatedWorkers workers = SimulatedWorkers.start(bootstrap, topics, 20);
                 JournalWatcher journal = JournalWatcher.start(bootstrap, topics.journal(), registry);
                 KafkaProducer<String, byte[]> producer = garbageProducer(bootstrap, raised ? 12 * 1024 * 1024 : 1024 * 1024);
                 SteadyLoad load = SteadyLoad.start(bootstrap, topics, run, pools, 40)) {
                workers.register(fleet);
                await().atMost(Duration.ofSeconds(60)).until(() -> journal.succeeded().count() >= 20);
                RecordMetadata where = raised
                        ? producer.send(new ProducerRecord<>(topics.submissions().name(), pools.get(0),
                                maker.taskWithPayload("big", 10 * 1024 * 1024))).get()
                        : largestAccepted(producer, topics.submissions().name(), pools.get(0), maker);
                log.info("Sent a {}-byte task ({})", where.serializedValueSize(), variant);
                long before = journal.succeeded().count();
                await("tasks keep finishing after the big task").atMost(Duration.ofSeconds(60))
                        .until(() -> journal.succeeded().count() >= before + 40);
                load.stop();
                List<String> valid = load.submitted();
                await("every valid task finishes").atMost(Duration.ofMinutes(2))
                        .until(() -> journal.succeeded().count() >= valid.size());
                Outcome outcome = Outcome.read(bootstrap, topics);
                assertThat(outcome.deadLetters().stream().anyMatch(d -> d.getOffset() == where.offset()
                        && d.getPartition() == where.partition() && d.getTopic().equals(where.topic()))
                        || !outcome.rejected(maker.id("big")).isEmpty() || outcome.succeeded().contains(maker.id("big")))
                        .as("the big task is dead-lettered, rejected or run").isTrue();
                assertThat(outcome.succeeded()).containsAll(valid).doesNotHaveDuplicates();
            }
            assertThat(app.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            assertThat(threadNames(app.streams())).as("no stream thread died and was replaced").isEqualTo(threads);
        } finally {
            // A stream thread that keeps dying and being replaced takes a while to stop; the next test must
            // not meet it.
            app.streams().close(Duration.ofMinutes(2));
            scheduler.close();
        }
    }

    /** Sends the largest task the producer (max.request.size 1 MB) takes, trying payloads 16 bytes apart. */
    private static RecordMetadata largestAccepted(KafkaProducer<String, byte[]> producer, String topic, String pool,
                                                  GarbageMaker maker) throws Exception {
        for (int payload = 1024 * 1024; payload > 0; payload -= 16) {
            try {
                return producer.send(new ProducerRecord<>(topic, pool, maker.taskWithPayload("big", payload))).get();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RecordTooLargeException)) {
                    throw e;
                }
            }
        }
        throw new AssertionError("no payload size was accepted");
    }

    private RunningScheduler start(String run) {
        return RunningScheduler.on(broker).prefix(run + ".").applicationId(run).stateDir(stateDir)
                .partitions(PARTITIONS).start();
    }

    static KafkaProducer<String, byte[]> garbageProducer(String bootstrap, int maxRequestSize) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, maxRequestSize,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024),
                new StringSerializer(), new ByteArraySerializer());
    }

    static Set<String> threadNames(KafkaStreams streams) {
        Set<String> names = new HashSet<>();
        for (ThreadMetadata t : streams.metadataForLocalThreads()) {
            names.add(t.threadName());
        }
        return names;
    }

    /** What the scheduler made of the run: its dead letters and journal, read to their ends. */
    record Outcome(List<DeadLetter> deadLetters, List<JournalEntry> journal) {

        static Outcome read(String bootstrap, Topics topics) {
            List<DeadLetter> letters = TopicDump.readAll(bootstrap, topics.deadLetters().name(),
                    topics.deadLetters().valueSerde().deserializer()).stream().map(ConsumerRecord::value).toList();
            List<JournalEntry> journal = TopicDump.readAll(bootstrap, topics.journal().name(),
                    topics.journal().valueSerde().deserializer()).stream().flatMap(r -> Journal.entries(r.value()).stream())
                    .toList();
            return new Outcome(letters, journal);
        }

        /** Dead letters of inputs that decoded but then failed in the scheduler: each is a bug. */
        List<String> processingFailures() {
            return deadLetters.stream().filter(d -> d.getReason().startsWith("processing failed"))
                    .map(d -> d.getTopic() + "/" + d.getPartition() + "/" + d.getOffset() + ": " + d.getReason())
                    .toList();
        }

        List<String> succeeded() {
            return journal.stream().map(JournalEntry::getEvent)
                    .filter(e -> e instanceof TaskFinished f && f.getState() == TaskState.SUCCEEDED)
                    .map(e -> ((TaskFinished) e).getTaskId()).toList();
        }

        void check(Garbage g, RecordMetadata where) {
            String what = g.name() + (where == null ? "" : " (" + where.topic() + "/" + where.partition() + "/"
                    + where.offset() + ")");
            log.info("Fuzz: {} -> {}", what, describe(g, where));
            Garbage.Expect expect = g.expect();
            if (expect instanceof DeadLettered) {
                assertThat(deadLetters).as(what + " is dead-lettered with a reason").anySatisfy(letter -> {
                    assertThat(letter.getTopic()).isEqualTo(where.topic());
                    assertThat(letter.getPartition()).isEqualTo(where.partition());
                    assertThat(letter.getOffset()).isEqualTo(where.offset());
                    assertThat(letter.getReason()).isNotBlank();
                });
            } else if (expect instanceof Rejected r) {
                assertThat(rejected(r.id())).as(what + " is rejected with a reason").isNotEmpty()
                        .allSatisfy(i -> assertThat(i.getReason()).isNotBlank());
            } else if (expect instanceof RejectedForPool r) {
                assertThat(rejections()).as(what + " is rejected for its empty pool").anySatisfy(i -> {
                    assertThat(i.getInputType()).isEqualTo(r.inputType());
                    assertThat(i.getField()).isEqualTo("pool");
                });
            } else if (expect instanceof RejectedOrSucceeded r) {
                assertThat(!rejected(r.taskId()).isEmpty() || succeeded().contains(r.taskId()))
                        .as(what + " is rejected or runs to success like any task").isTrue();
            } else if (expect instanceof RejectedOrAccepted r) {
                assertThat(!rejected(r.workerId()).isEmpty() || accepted(r.workerId()))
                        .as(what + " is rejected or accepted").isTrue();
            }
        }

        /** What became of one bad input, in words, for the log. */
        private String describe(Garbage g, RecordMetadata where) {
            if (where != null) {
                for (DeadLetter d : deadLetters) {
                    if (d.getTopic().equals(where.topic()) && d.getPartition() == where.partition()
                            && d.getOffset() == where.offset()) {
                        return "dead letter: " + d.getReason();
                    }
                }
            }
            Garbage.Expect e = g.expect();
            String id = e instanceof Rejected r ? r.id() : e instanceof RejectedOrSucceeded r ? r.taskId()
                    : e instanceof RejectedOrAccepted r ? r.workerId() : null;
            if (id == null) {
                return "see the InputRejected entries on field pool";
            }
            List<InputRejected> rejected = rejected(id);
            if (!rejected.isEmpty()) {
                return "rejected: " + rejected.get(0).getCode() + " " + rejected.get(0).getField() + ": "
                        + rejected.get(0).getReason();
            }
            if (e instanceof RejectedOrAccepted) {
                return accepted(id) ? "accepted as a worker" : "no trace";
            }
            return succeeded().contains(id) ? "accepted and ran to success"
                    : waitingReason(id) != null ? "waiting: " + waitingReason(id) : "no trace";
        }

        private List<InputRejected> rejections() {
            return journal.stream().map(JournalEntry::getEvent).filter(InputRejected.class::isInstance)
                    .map(InputRejected.class::cast).toList();
        }

        List<InputRejected> rejected(String id) {
            return rejections().stream().filter(i -> id.equals(i.getTaskId()) || id.equals(i.getWorkerId())).toList();
        }

        private String waitingReason(String taskId) {
            return journal.stream().map(JournalEntry::getEvent)
                    .filter(e -> e instanceof TaskWaiting w && w.getTaskId().equals(taskId))
                    .map(e -> ((TaskWaiting) e).getReason()).findFirst().orElse(null);
        }

        private boolean accepted(String workerId) {
            return journal.stream().map(JournalEntry::getEvent)
                    .anyMatch(e -> e instanceof WorkerAccepted a && a.getWorkerId().equals(workerId));
        }
    }

}
