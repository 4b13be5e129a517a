package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DeadLetter;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.WorkerEvent;
import io.cronoq.testkit.KafkaBroker;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopicSchemaRegistryIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private Map<String, Object> kafka;
    private Topics topics;
    private TopicSchemaRegistry registry;

    @BeforeEach
    void createTopicsAndRegistry() {
        kafka = Map.of("bootstrap.servers", broker.bootstrapServers());
        String prefix = broker.uniqueName("it") + ".";
        registry = open(TopicSchemaRegistry.create(kafka, Topics.schemasTopic(prefix)));
        topics = Topics.withPrefix(prefix, registry);
        List<String> names = topics.all(3).stream().map(TopicSpec::name)
                .filter(name -> !name.equals(topics.schemas())).toList();
        broker.createTopics(3, names.toArray(String[]::new));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeables) {
            closeable.close();
        }
    }

    @Test
    void everyEventTypeRoundTripsThroughTheBrokerInTheConfluentWireFormat() {
        assertRoundTrip(topics.submissions(), SampleRecords.everyBranchOf(SubmissionEvent.class));
        assertRoundTrip(topics.workers(), SampleRecords.everyBranchOf(WorkerEvent.class));
        assertRoundTrip(topics.completions(), SampleRecords.everyBranchOf(CompletionEvent.class));
        assertRoundTrip(topics.assignments(), SampleRecords.everyBranchOf(AssignmentEvent.class));
        assertRoundTrip(topics.journal(), SampleRecords.everyBranchOf(JournalEntry.class));
        assertRoundTrip(topics.deadLetters(), List.of(SampleRecords.filled(DeadLetter.class)));
    }

    @Test
    void anotherProcessResolvesTheIdsTheFirstOneWrote() {
        // The second instance starts before anything is registered, as a consumer process started earlier would.
        TopicSchemaRegistry other = open(TopicSchemaRegistry.create(kafka, registry.topic()));
        AvroSerde<SubmissionEvent> otherSerde = AvroSerde.of(SubmissionEvent.class, other);
        SubmissionEvent event = SampleRecords.everyBranchOf(SubmissionEvent.class).get(0);

        byte[] bytes = topics.submissions().valueSerde().serializer().serialize(topics.submissions().name(), event);
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();

        assertThat(other.byId(id)).contains(SubmissionEvent.getClassSchema());
        assertThat(otherSerde.deserialize(topics.submissions().name(), bytes)).isEqualTo(event);
        assertThat(other.subjects()).containsExactly(topics.submissions().name() + "-value");
        assertThat(other.latest(topics.submissions().name() + "-value"))
                .hasValueSatisfying(latest -> assertThat(latest.id()).isEqualTo(id));

        TopicSchemaRegistry third = open(TopicSchemaRegistry.create(kafka, registry.topic()));
        assertThat(third.byId(id)).contains(SubmissionEvent.getClassSchema());
        assertThat(third.versions(topics.submissions().name() + "-value")).containsExactly(1);
    }

    @Test
    void registeringFromTwoProcessesGivesTheSameIdAndOneVersion() {
        TopicSchemaRegistry other = open(TopicSchemaRegistry.create(kafka, registry.topic()));
        String subject = topics.journal().name() + "-value";

        int first = registry.register(subject, JournalEntry.getClassSchema());
        int second = other.register(subject, JournalEntry.getClassSchema());

        assertThat(second).isEqualTo(first);
        assertThat(other.versions(subject)).containsExactly(1);
        assertThat(registry.versions(subject)).containsExactly(1);
    }

    @Test
    void schemaTopicIsCreatedCompactedWithOnePartition() throws Exception {
        TopicDescription description = broker.adminClient().describeTopics(List.of(registry.topic()))
                .allTopicNames().get().get(registry.topic());
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, registry.topic());
        String policy = broker.adminClient().describeConfigs(List.of(resource)).all().get()
                .get(resource).get("cleanup.policy").value();

        assertThat(registry.topic()).endsWith("._schemas");
        assertThat(description.partitions()).hasSize(1);
        assertThat(policy).isEqualTo("compact");
    }

    @Test
    void factoryWithoutARegistryUrlOpensTheTopicRegistryUnderThePrefix() {
        String prefix = topics.prefix();

        SchemaRegistry fromConfig = open(SchemaRegistries.fromConfig(Map.of(
                "bootstrap.servers", broker.bootstrapServers(), Topics.PREFIX_CONFIG, prefix,
                "application.id", "ignored-by-the-registry")));

        assertThat(fromConfig).isInstanceOfSatisfying(TopicSchemaRegistry.class,
                r -> assertThat(r.topic()).isEqualTo(prefix + "_schemas"));
    }

    private <V extends SpecificRecord> void assertRoundTrip(Topic<String, V> topic, List<V> values) {
        try (KafkaProducer<String, V> producer = new KafkaProducer<>(broker.producerProps(),
                topic.keySerde().serializer(), topic.valueSerde().serializer())) {
            for (V value : values) {
                producer.send(new ProducerRecord<>(topic.name(), "pool-a", value));
            }
            producer.flush();
        }

        List<ConsumerRecord<byte[], byte[]>> records = consume(topic.name(), values.size());

        assertThat(records).hasSize(values.size());
        List<V> decoded = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            byte[] bytes = record.value();
            assertThat(bytes[0]).as("magic byte").isZero();
            int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
            Schema writer = registry.byId(id).orElseThrow();
            assertThat(writer.getFullName()).isEqualTo(values.get(0).getSchema().getFullName());
            decoded.add(topic.valueSerde().deserializer().deserialize(topic.name(), bytes));
        }
        assertThat(decoded).containsExactlyElementsOf(values);
    }

    private List<ConsumerRecord<byte[], byte[]>> consume(String topic, int count) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                broker.consumerProps(broker.uniqueName("g")), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private <T extends AutoCloseable> T open(T closeable) {
        closeables.add(closeable);
        return closeable;
    }
}
