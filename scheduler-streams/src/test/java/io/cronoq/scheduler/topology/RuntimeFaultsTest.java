package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.streams.errors.ProcessorStateException;
import org.apache.kafka.streams.errors.TaskMigratedException;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * A valid input met by a fault of Kafka's runtime (the task migrated during a failover, the
 * producer fenced, a store that cannot write) is handed back to Kafka Streams, which aborts the
 * transaction and processes the input again where the task runs: it is never dead-lettered as poison.
 * A bug in handling one input still dead-letters that input and the scheduler keeps running.
 */
class RuntimeFaultsTest {

    private final Topics topics = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry());
    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private RuntimeException failure;

    private SchedulerProcessor processor() {
        context.setCurrentSystemTimeMs(1_000L); // the clock the scheduler hears inputs on
        MockStores.add(context, topics, this::faulty); // the tasks store fails every write once failure is set
        SchedulerProcessor processor = new SchedulerProcessor(RegistrationGuard.open(), TimeRules.DEFAULT,
                Duration.ofSeconds(1), JournalRecords.PER_COMMIT,
                AssignmentRecords.PER_COMMIT);
        processor.init(context);
        return processor;
    }

    /** The stores of {@code memory}, failing every write with {@link #failure} once it is set. */
    private KeyValueBytesStoreSupplier faulty(KeyValueBytesStoreSupplier memory) {
        Supplier<RuntimeException> fault = () -> failure;
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return memory.name();
            }

            @Override
            @SuppressWarnings("unchecked")
            public KeyValueStore<Bytes, byte[]> get() {
                KeyValueStore<Bytes, byte[]> store = memory.get();
                return (KeyValueStore<Bytes, byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {KeyValueStore.class}, (proxy, method, args) -> {
                            if (fault.get() != null && method.getName().startsWith("put")) {
                                throw fault.get();
                            }
                            try {
                                return method.invoke(store, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }

            @Override
            public String metricsScope() {
                return memory.metricsScope();
            }
        };
    }

    private static Record<String, Inbound> submission(String id) {
        TaskSubmitted task = new TaskSubmitted(id, "p", Map.of(), null,
                ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)), Priority.NORMAL, null, null, null, null,
                30_000L, null, List.of(), null, Instant.parse("2026-01-01T00:00:00Z"), null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
        Inbound in = new Inbound(task, "p".getBytes(StandardCharsets.UTF_8), new byte[] {0}, "cronoq.submissions", 0, 7);
        return new Record<>("p", in, 1_000L);
    }

    private long deadLetters() {
        return context.forwarded(SchedulerTopology.DEAD_LETTERS_SINK).size();
    }

    @Test
    void aTaskMigratedDuringFailoverIsRethrownNotDeadLettered() {
        SchedulerProcessor processor = processor();
        failure = new TaskMigratedException("the task moved to another instance");

        assertThatThrownBy(() -> processor.process(submission("t1"))).isSameAs(failure);
        assertThat(deadLetters()).isZero();
    }

    @Test
    void aFencedProducerAndAFailingStoreAreTheRuntimesToo() {
        SchedulerProcessor processor = processor();
        failure = new ProducerFencedException("fenced by a newer instance");
        assertThatThrownBy(() -> processor.process(submission("t1"))).isSameAs(failure);

        failure = new ProcessorStateException("No space left on device");
        // Kafka Streams' store layers wrap a store's fault in one of their own, of the same kind.
        assertThatThrownBy(() -> processor.process(submission("t2"))).isInstanceOf(ProcessorStateException.class)
                .hasMessageContaining("No space left on device");
        assertThat(deadLetters()).isZero();
    }

    @Test
    void afterTheRuntimeRecoversTheSameInputIsScheduled() {
        SchedulerProcessor processor = processor();
        failure = new TaskMigratedException("moved");
        assertThatThrownBy(() -> processor.process(submission("t1"))).isSameAs(failure);

        failure = null;
        processor.process(submission("t1"));

        assertThat(deadLetters()).isZero();
        assertThat(context.forwarded(SchedulerTopology.JOURNAL_SINK)).isNotEmpty();
        // Scheduled afresh from the stores as committed: submitted and waiting, not a duplicate of the aborted try,
        // in one journal record (what one input caused).
        assertThat(context.forwarded(SchedulerTopology.JOURNAL_SINK)).singleElement()
                .extracting(f -> Journal.entries(Bodies.journal(f.record().value())))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.list(JournalEntry.class))
                .extracting(e -> e.getEvent().getClass().getSimpleName()).containsExactly("TaskSubmitted", "TaskWaiting");
    }

    @Test
    void aBugInHandlingOneInputStillDeadLettersItAndKeepsRunning() {
        SchedulerProcessor processor = processor();
        failure = new IllegalStateException("a bug");

        processor.process(submission("t1"));

        assertThat(deadLetters()).isEqualTo(1);
    }
}
