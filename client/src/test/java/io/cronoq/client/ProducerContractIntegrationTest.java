package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.DeadLetter;
import io.cronoq.events.InputRejected;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.testing.JournalTail;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.schemas.RegisteredSchema;
import io.cronoq.schemas.SchemaRegistries;
import io.cronoq.schemas.SchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParser;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The producer contract of docs/producer-contract.md, proved from outside the client: what a Python
 * or Go producer does — a plain producer of bytes, the published {@code .avsc} files, a generic
 * record, the Confluent wire format by hand with the id the registry gives — submits a task that
 * runs; and a record that breaks the contract ends where the page says.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ProducerContractIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    /** The published schemas, as another language's producer would get them from the repository. */
    private static final Path AVSC = Path.of("..", "schemas", "src", "main", "avro");
    private static final String POOL = "inference";

    private RunningScheduler scheduler;
    private SchemaRegistry registry;
    private KafkaProducer<String, byte[]> producer;
    private String topic;

    @BeforeEach
    void start() {
        scheduler = RunningScheduler.on(broker).name("client").neverEvict().start();
        topic = scheduler.prefix() + "submissions";
        // The registry the gateway serves under the Confluent paths: here, straight from its topic.
        registry = SchemaRegistries.fromConfig(Map.of("bootstrap.servers", broker.bootstrapServers(),
                Topics.PREFIX_CONFIG, scheduler.prefix()));
        producer = new KafkaProducer<>(broker.producerProps(), new StringSerializer(), new ByteArraySerializer());
    }

    @AfterEach
    void stop() {
        producer.close();
        registry.close();
        scheduler.close();
    }

    @Test
    void aPlainProducerWithAGenericRecordInTheWireFormatSubmitsATaskThatRuns() throws Exception {
        Schema envelope = publishedSchema("io.cronoq.events.SubmissionEvent");
        String subject = topic + "-value";
        int id = registry.register(subject, envelope);
        String taskId = "py-" + UUID.randomUUID();
        GenericRecord task = new GenericRecordBuilder(branch(envelope, "TaskSubmitted"))
                .set("taskId", taskId)
                .set("pool", POOL)
                .set("labels", Map.of("gpu", "a100"))
                .set("payload", ByteBuffer.wrap("from python".getBytes(StandardCharsets.UTF_8)))
                .set("submittedAt", System.currentTimeMillis())
                .build();

        produce(POOL, wireFormat(id, envelope, new GenericRecordBuilder(envelope).set("event", task).build()));

        try (SimulatedWorker worker = new SimulatedWorker(scheduler, POOL, "gpu-1"); JournalTail journal = scheduler.journal()) {
            worker.register(Map.of("gpu", "a100"), 1);
            var attempt = worker.awaitAssignment(taskId);
            assertThat(StandardCharsets.UTF_8.decode(attempt.getPayload()).toString()).isEqualTo("from python");
            worker.succeed(attempt, null);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(journal.eventsOf(taskId))
                    .filteredOn(TaskFinished.class::isInstance).singleElement()
                    .satisfies(f -> assertThat(((TaskFinished) f).getState()).isEqualTo(TaskState.SUCCEEDED)));
        }
        RegisteredSchema latest = registry.latest(subject).orElseThrow();
        assertThat(latest.id()).as("what GET /subjects/%s/versions/latest serves", subject).isEqualTo(id);
        // A record holds a pool's entries between two commits: the success and the finish may follow the start in it.
        List<GenericRecord> events = journalEntries();
        List<String> names = events.stream().map(e -> e.getSchema().getName()).toList();
        int succeeded = names.indexOf("AttemptSucceeded");
        assertThat(succeeded).as("the journal as any Avro consumer reads it: %s", names).isNotNegative();
        assertThat(names.get(succeeded + 1)).as("what follows the success").isEqualTo("TaskFinished");
        assertThat(events.get(succeeded + 1).get("taskId").toString()).isEqualTo(taskId);
    }

    /**
     * A gang from a plain producer: one generic record holds both members; they start together on two workers,
     * each told its rank and both workers; and the journal, read generically, holds the gang as it was sent and
     * each member's assignment with the gang.
     */
    @Test
    void aPlainProducerSubmitsAGangWhoseMembersStartTogetherAndTheJournalShowsItGenerically() throws Exception {
        Schema envelope = publishedSchema("io.cronoq.events.SubmissionEvent");
        int id = registry.register(topic + "-value", envelope);
        Schema gangSchema = branch(envelope, "GangSubmitted");
        Schema memberSchema = gangSchema.getField("members").schema().getElementType();
        String gangId = "py-gang-" + UUID.randomUUID();
        List<GenericRecord> members = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            members.add(new GenericRecordBuilder(memberSchema).set("taskId", gangId + "-" + rank).set("pool", POOL)
                    .set("payload", ByteBuffer.wrap(("rank " + rank).getBytes(StandardCharsets.UTF_8)))
                    .set("submittedAt", System.currentTimeMillis()).build());
        }
        GenericRecord gang = new GenericRecordBuilder(gangSchema).set("gangId", gangId).set("pool", POOL)
                .set("placement", new org.apache.avro.generic.GenericData.EnumSymbol(
                        gangSchema.getField("placement").schema(), "SPREAD"))
                .set("members", members).set("submittedAt", System.currentTimeMillis()).build();

        produce(POOL, wireFormat(id, envelope, new GenericRecordBuilder(envelope).set("event", gang).build()));

        try (SimulatedWorker first = new SimulatedWorker(scheduler, POOL, "gang-w1");
             SimulatedWorker second = new SimulatedWorker(scheduler, POOL, "gang-w2")) {
            first.register(Map.of(), 1);
            second.register(Map.of(), 1);
            List<io.cronoq.events.AttemptAssigned> assigned = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assigned.clear();
                assigned.addAll(first.received());
                assigned.addAll(second.received());
                assertThat(assigned).hasSize(2);
            });
            assertThat(assigned).extracting(a -> a.getGang().getRank()).containsExactlyInAnyOrder(0, 1);
            assertThat(assigned).extracting(a -> a.getGang().getPeers().stream()
                    .map(io.cronoq.events.GangPeer::getWorkerId).toList())
                    .allSatisfy(peers -> assertThat(peers).containsExactlyInAnyOrder("gang-w1", "gang-w2"));
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            List<GenericRecord> events = journalEntries();
            assertThat(events).filteredOn(e -> e.getSchema().getName().equals("GangSubmitted"))
                    .singleElement().satisfies(e -> assertThat(e.get("gangId").toString()).isEqualTo(gangId));
            assertThat(events).filteredOn(e -> e.getSchema().getName().equals("AttemptAssigned")
                            && e.get("taskId").toString().startsWith(gangId))
                    .hasSize(2).allSatisfy(e -> assertThat(((GenericRecord) e.get("gang")).get("gangId").toString())
                            .isEqualTo(gangId));
        });
    }

    /** Every entry of the journal generically decoded, each record's in order ({@code event}, then {@code more}). */
    private List<GenericRecord> journalEntries() throws IOException {
        List<GenericRecord> events = new ArrayList<>();
        for (GenericRecord record : genericallyDecodedJournal()) {
            events.add((GenericRecord) record.get("event"));
            for (Object more : (List<?>) record.get("more")) {
                events.add((GenericRecord) ((GenericRecord) more).get("event"));
            }
        }
        return events;
    }

    /**
     * Every journal record read as a consumer that knows nothing of cronoq's classes does: bytes, the
     * schema id from the Confluent header, the writer schema from the registry, a generic reader.
     */
    private List<GenericRecord> genericallyDecodedJournal() throws IOException {
        List<GenericRecord> records = new ArrayList<>();
        String journal = scheduler.topics().journal().name();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("generic")),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            List<org.apache.kafka.common.TopicPartition> partitions = consumer.partitionsFor(journal).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(journal, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    ByteBuffer value = ByteBuffer.wrap(r.value());
                    assertThat(value.get()).as("magic byte").isZero();
                    Schema writer = registry.byId(value.getInt()).orElseThrow();
                    var decoder = org.apache.avro.io.DecoderFactory.get().binaryDecoder(r.value(), 5,
                            r.value().length - 5, null);
                    records.add(new org.apache.avro.generic.GenericDatumReader<GenericRecord>(writer).read(null, decoder));
                }
            }
        }
        return records;
    }

    @Test
    void anUndecodableRecordIsDeadLetteredWithItsReasonAndCoordinates() throws Exception {
        byte[] notAvro = "{\"taskId\": \"t1\", \"pool\": \"inference\"}".getBytes(StandardCharsets.UTF_8);
        long offset = produce(POOL, notAvro);

        try (KafkaConsumer<String, DeadLetter> deadLetters = new KafkaConsumer<>(
                broker.consumerProps(broker.uniqueName("dead")), scheduler.topics().deadLetters().keySerde().deserializer(),
                scheduler.topics().deadLetters().valueSerde().deserializer())) {
            deadLetters.subscribe(List.of(scheduler.topics().deadLetters().name()));
            List<DeadLetter> letters = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                deadLetters.poll(Duration.ofMillis(200)).forEach(r -> letters.add(r.value()));
                return !letters.isEmpty();
            });
            DeadLetter letter = letters.get(0);
            assertThat(letter.getTopic()).isEqualTo(topic);
            assertThat(letter.getOffset()).isEqualTo(offset);
            assertThat(letter.getReason()).contains("byte 0");
            assertThat(letter.getValue()).isEqualTo(ByteBuffer.wrap(notAvro));
        }
    }

    @Test
    void aDecodableButInvalidSubmissionIsJournaledAsRejectedWithTheField() throws Exception {
        Schema envelope = publishedSchema("io.cronoq.events.SubmissionEvent");
        int id = registry.register(topic + "-value", envelope);
        String taskId = "bad-label-" + UUID.randomUUID();
        GenericRecord task = new GenericRecordBuilder(branch(envelope, "TaskSubmitted"))
                .set("taskId", taskId).set("pool", POOL).set("labels", Map.of("gpu", "a 100"))
                .set("submittedAt", System.currentTimeMillis()).build();

        produce(POOL, wireFormat(id, envelope, new GenericRecordBuilder(envelope).set("event", task).build()));

        try (JournalTail journal = scheduler.journal()) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(journal.eventsOf(taskId))
                    .filteredOn(InputRejected.class::isInstance).singleElement().satisfies(e -> {
                        InputRejected rejected = (InputRejected) e;
                        assertThat(rejected.getField()).isEqualTo("labels.gpu");
                        assertThat(rejected.getReason()).contains("'a 100'");
                    }));
            assertThat(journal.eventsOf(taskId)).extracting(SpecificRecord::getSchema).extracting(Schema::getName)
                    .doesNotContain("TaskSubmitted");
        }
    }

    /** Parses every published {@code .avsc} (they refer to each other by name) and returns one schema. */
    private static Schema publishedSchema(String fullName) throws IOException {
        SchemaParser parser = new SchemaParser();
        try (Stream<Path> files = Files.list(AVSC)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".avsc")).toList()) {
                parser.parse(file);
            }
        }
        return parser.getParsedNamedSchemas().stream().filter(s -> s.getFullName().equals(fullName)).findFirst()
                .orElseThrow(() -> new AssertionError(fullName + " is not in " + AVSC.toAbsolutePath()));
    }

    private static Schema branch(Schema envelope, String name) {
        return envelope.getField("event").schema().getTypes().stream().filter(s -> s.getName().equals(name))
                .findFirst().orElseThrow();
    }

    /** Byte 0 = 0, bytes 1-4 = the schema id big-endian, then the Avro binary: the Confluent wire format. */
    private static byte[] wireFormat(int schemaId, Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private long produce(String key, byte[] value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS).offset();
    }
}
