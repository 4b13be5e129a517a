package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.policy.TimeRules;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Assignments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.MockProcessorContext.CapturedPunctuator;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * The rate tick (every {@link SchedulerProcessor#RATE_TICK}) runs only while a loaded pool holds
 * back a task for its rate limit's units. Kafka Streams commits a stream task after each of its
 * punctuations, so a rate tick always scheduled would make every idle pool commit 50 times a second.
 * A processor initialized again (a revived stream task) keeps one tick and at most one rate tick.
 */
class RateTickTest {

    private static final String POOL = "llm";
    private static final long T0 = Instant.parse("2026-06-01T08:00:00Z").toEpochMilli();

    private final Topics topics = Topics.withPrefix("cronoq.", new InMemorySchemaRegistry());
    private final MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
    private long offset;

    @Test
    void onlyTheTickRunsWhileNoTaskWaitsForARateLimitsUnits() {
        SchedulerProcessor processor = processor();
        send(processor, register("w1", 4));
        send(processor, submit("plain", List.of()));

        assertThat(assignedTasks()).containsExactly("plain");
        assertThat(context.scheduledPunctuators()).singleElement()
                .satisfies(p -> assertThat(p.getInterval()).isEqualTo(Duration.ofSeconds(1)));
    }

    @Test
    void theRateTickStartsWithATaskHeldBackAndStopsOnceTheBucketStartedIt() {
        SchedulerProcessor processor = rateLimitedPool();
        send(processor, submit("c1", List.of(new RateLimitUse("openai", 1))));
        assertThat(context.scheduledPunctuators()).as("the first task takes the burst: nothing held back").hasSize(1);

        send(processor, submit("c2", List.of(new RateLimitUse("openai", 1))));
        assertThat(assignedTasks()).containsExactly("c1");
        CapturedPunctuator rate = rateTick();
        assertThat(rate.cancelled()).isFalse();

        rate.getPunctuator().punctuate(T0 + 40); // not refilled yet: still held back
        assertThat(assignedTasks()).containsExactly("c1");
        assertThat(rate.cancelled()).isFalse();

        rate.getPunctuator().punctuate(T0 + 120); // 100 ms refills one unit at 10/s
        assertThat(assignedTasks()).containsExactly("c1", "c2");
        assertThat(rate.cancelled()).as("nothing is held back any more").isTrue();

        send(processor, submit("c3", List.of(new RateLimitUse("openai", 1))));
        assertThat(context.scheduledPunctuators()).as("held back again: a new rate tick")
                .filteredOn(p -> !p.cancelled()).hasSize(2);
    }

    @Test
    void aProcessorInitializedAgainKeepsOneTickAndOneRateTick() {
        SchedulerProcessor processor = rateLimitedPool();
        send(processor, submit("c1", List.of(new RateLimitUse("openai", 1))));
        send(processor, submit("c2", List.of(new RateLimitUse("openai", 1))));
        assertThat(context.scheduledPunctuators()).filteredOn(p -> !p.cancelled()).hasSize(2);

        // Reviving a stream task closes its processors and initializes them again; the task keeps its punctuations.
        processor.close();
        processor.init(context);
        assertThat(context.scheduledPunctuators()).filteredOn(p -> !p.cancelled()).singleElement()
                .satisfies(p -> assertThat(p.getInterval()).isEqualTo(Duration.ofSeconds(1)));
        send(processor, submit("c3", List.of(new RateLimitUse("openai", 1))));
        assertThat(context.scheduledPunctuators()).filteredOn(p -> !p.cancelled())
                .extracting(CapturedPunctuator::getInterval)
                .containsExactlyInAnyOrder(Duration.ofSeconds(1), SchedulerProcessor.RATE_TICK);
    }

    private CapturedPunctuator rateTick() {
        return context.scheduledPunctuators().stream()
                .filter(p -> p.getInterval().equals(SchedulerProcessor.RATE_TICK)).reduce((a, b) -> b).orElseThrow();
    }

    private List<String> assignedTasks() {
        return context.forwarded(SchedulerTopology.ASSIGNMENTS_SINK).stream()
                .flatMap(f -> Assignments.events(Bodies.assignments(f.record().value())).stream())
                .filter(AttemptAssigned.class::isInstance)
                .map(e -> ((AttemptAssigned) e).getTaskId()).toList();
    }

    /** A pool with a worker of 4 slots and a rate limit "openai" of 10/s with a burst of 1. */
    private SchedulerProcessor rateLimitedPool() {
        SchedulerProcessor processor = processor();
        send(processor, rateLimit("openai", 10.0, 1));
        send(processor, register("w1", 4));
        return processor;
    }

    private SchedulerProcessor processor() {
        context.setCurrentSystemTimeMs(T0);
        MockStores.add(context, topics, tasks -> tasks);
        SchedulerProcessor processor = new SchedulerProcessor(RegistrationGuard.open(), TimeRules.DEFAULT,
                Duration.ofSeconds(1), JournalRecords.PER_COMMIT,
                AssignmentRecords.PER_COMMIT);
        processor.init(context);
        return processor;
    }

    private void send(SchedulerProcessor processor, SpecificRecord event) {
        Inbound in = new Inbound(event, POOL.getBytes(StandardCharsets.UTF_8), new byte[] {0}, "cronoq.submissions", 0,
                offset++);
        processor.process(new Record<>(POOL, in, T0));
    }

    private static TaskSubmitted submit(String id, List<RateLimitUse> rates) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setPayload(ByteBuffer.wrap(id.getBytes()))
                .setRateLimits(rates).setSubmittedAt(Instant.ofEpochMilli(T0)).build();
    }

    private static LimitSet rateLimit(String name, double perSecond, int burst) {
        return LimitSet.newBuilder().setPool(POOL).setKind(LimitKind.RATE_LIMIT).setName(name).setPerSecond(perSecond)
                .setBurst(burst).setSetBy("admin").setSetAt(Instant.ofEpochMilli(T0 - 1_000)).build();
    }

    private static WorkerRegistered register(String id, int slots) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setSlots(slots)
                .setRegisteredAt(Instant.ofEpochMilli(T0)).build();
    }
}
