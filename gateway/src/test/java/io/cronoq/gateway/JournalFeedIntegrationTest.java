package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.query.TaskFilter;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gateway's one journal consumer feeds the counters and the history, each from its own start:
 * the counters what is written after the gateway started, the history everything from (now − its
 * length), which the feed reads again; the dead letters from their topic's beginning. On a real
 * broker: the records carry the times of their entries, which the history's start is found by.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JournalFeedIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "inference";
    /** The feed's clock: the history it keeps reaches back to an hour before this. */
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    private final Topics topics = Topics.withPrefix(broker.uniqueName("feed") + ".", new InMemorySchemaRegistry());

    @Test
    void theCountersStartAtTheGatewaysStartAndTheHistoryAtItsOwn() throws Exception {
        broker.createTopics(1, topics.journal().name(), topics.deadLetters().name());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(broker.producerProps(),
                new StringSerializer(), new ByteArraySerializer())) {
            // Before the gateway starts: one entry older than the history's hour and one inside it, in one
            // record (as the scheduler gathers what its inputs caused between two commits, stamped with the
            // latest), and one dead letter.
            JournalEntry inside = submitted("before-the-gateway", NOW.minus(30, ChronoUnit.MINUTES));
            JournalEntry spanning = submitted("before-the-history", NOW.minus(61, ChronoUnit.MINUTES));
            spanning.setMore(List.of(new JournalItem(inside.getEvent(), null, inside.getAt(), null)));
            write(producer, spanning, inside.getAt());
            producer.send(new ProducerRecord<>(topics.deadLetters().name(), "key", new byte[] {1})).get();

            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            JournalMeter meter = new JournalMeter(registry, () -> Set.of(0, 1, 2, 3, 4, 5), () -> 6);
            JournalHistory history = new JournalHistory(60);
            AtomicInteger baselines = new AtomicInteger();
            Map<String, Object> kafka = Map.of("bootstrap.servers", broker.bootstrapServers());
            try (JournalFeed feed = new JournalFeed(kafka, topics, meter, history, new EmptyStores(baselines),
                    Clock.fixed(NOW, ZoneOffset.UTC)).start()) {
                // The second question to the stores comes from the feed's loop, after it took the journal's end.
                await(() -> baselines.get() >= 2);
                write(producer, submitted("after-the-gateway", NOW.minusSeconds(30)));
                await(() -> waiting(history) == 2
                        && registry.get("cronoq.submissions").tag("pool", POOL).counter().count() == 1.0);

                assertThat(waiting(history)).as("the two tasks submitted in the last hour, not the one before")
                        .isEqualTo(2);
                assertThat(baselines).as("the stores did not answer the first time: asked again").hasValue(2);
                assertThat(registry.get("cronoq.submissions").tag("pool", POOL).counter().count())
                        .as("only the submission written after the gateway started, though the history read two")
                        .isEqualTo(1.0);
                assertThat(registry.get("cronoq.dead.letters").gauge().value()).isEqualTo(1.0);
            }
        }
    }

    private static void await(BooleanSupplier condition) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(condition::getAsBoolean);
    }

    private void write(KafkaProducer<String, byte[]> producer, JournalEntry entry) throws Exception {
        write(producer, entry, entry.getAt());
    }

    private void write(KafkaProducer<String, byte[]> producer, JournalEntry entry, Instant stamp) throws Exception {
        byte[] value = topics.journal().valueSerde().serializer().serialize(topics.journal().name(), entry);
        producer.send(new ProducerRecord<>(topics.journal().name(), 0, stamp.toEpochMilli(), entry.getPool(),
                value)).get();
    }

    private static long waiting(JournalHistory history) {
        try {
            List<Long> waiting = history.history(POOL, 1, NOW).orElseThrow().total().waiting();
            return waiting.get(waiting.size() - 1);
        } catch (ApiException | java.util.NoSuchElementException notYet) {
            return -1;
        }
    }

    private static JournalEntry submitted(String taskId, Instant time) {
        TaskSubmitted task = TaskSubmitted.newBuilder().setTaskId(taskId).setPool(POOL).setLabels(Map.of())
                .setPayload(ByteBuffer.allocate(0)).setSubmittedAt(time).build();
        return Journal.entry(POOL, time, task, null);
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
        public SnapshotView snapshot(ListCaps caps) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<PoolView> pool(String pool, ListCaps caps) {
            throw new UnsupportedOperationException();
        }

        @Override
        public LimitsView limits(ListCaps caps) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<PoolLimitsView> limits(String pool, ListCaps caps) {
            throw new UnsupportedOperationException();
        }

        @Override
        public TenantsView tenants() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<SharingView> sharing(String pool) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<ForecastView> forecast(String pool, int limit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Readiness readiness() {
            return new Readiness(true, "RUNNING", null);
        }
    }
}
