package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.topology.JournalEntries.all;
import static io.cronoq.scheduler.topology.JournalEntries.only;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.LimitsRecord;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Concurrency keys and rate limits through the whole topology: an admin's limits as input events on
 * the submissions topic, kept in the limits store; a key at its limit holding back only its tasks
 * and handing its slot on; a failed attempt giving its key back; a bucket refilled on the
 * scheduler's rate tick between its ticks; a task naming an undefined limit placed when it is
 * defined; malformed limits refused naming the field. After each, the journal folds to the stores.
 */
class LimitsTopologyTest {

    private static final String POOL = "llm";
    private static final Instant T0 = Instant.parse("2026-06-01T08:00:00Z");

    private final SchedulerDriver scheduler = new SchedulerDriver(Map.of(), T0);
    private final List<JournalEntry> journal = new ArrayList<>();
    private final List<AttemptAssigned> running = new ArrayList<>();
    private Instant clock = T0;
    private int submitted;

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aKeyAtItsLimitHoldsBackOnlyItsTasksAndAFailedAttemptGivesItBack() {
        scheduler.send(keyLimit("customer-42", 1));
        scheduler.send(register("w1", 3));
        submit("a1", List.of(new ConcurrencyKey("customer-42", null)), List.of());
        submit("a2", List.of(new ConcurrencyKey("customer-42", null)), List.of());
        submit("u1", List.of(), List.of());
        read();

        assertThat(runningIds()).containsExactly("a1", "u1");
        assertThat(scheduler.task("a2").getWaitingReason()).isEqualTo("concurrency key customer-42: 1/1 running");
        assertThat(scheduler.storeContents(StoreNames.LIMITS)).singleElement()
                .satisfies(kv -> assertThat(((LimitsRecord) kv.value).getKeys()).containsEntry("customer-42", 1));

        AttemptAssigned a1 = running.stream().filter(a -> a.getTaskId().equals("a1")).findFirst().orElseThrow();
        scheduler.send(AttemptFailed.newBuilder().setTaskId("a1").setPool(POOL).setAttempt(1).setWorkerId("w1")
                .setGeneration(a1.getGeneration()).setAt(clock).setError("rate limited upstream").setRetryable(true).build());
        running.remove(a1);
        List<JournalEntry> after = read();

        // a1 waits out its backoff outside the line; a2, next holding the key, takes the key and the slot.
        AttemptAssigned handed = only(after, AttemptAssigned.class);
        assertThat(handed.getTaskId()).isEqualTo("a2");
        assertThat(runningIds()).containsExactly("a2", "u1");
        advanceTo(T0.plusSeconds(6));
        read();
        assertThat(scheduler.task("a1").getWaitingReason()).isEqualTo("concurrency key customer-42: 1/1 running");
        assertFoldIsStores();
    }

    @Test
    void theSmallestLimitAppliesAndAnAdminsRaisedLimitStartsTheHeldBackTaskAtOnce() {
        scheduler.send(keyLimit("db", 1));
        scheduler.send(register("w1", 4));
        submit("wide", List.of(new ConcurrencyKey("db", 3)), List.of());
        submit("plain", List.of(new ConcurrencyKey("db", null)), List.of());
        submit("free", List.of(), List.of());
        read();
        assertThat(runningIds()).as("the admin's 1 caps the task's 3").containsExactly("free", "wide");
        assertThat(scheduler.task("plain").getWaitingReason()).isEqualTo("concurrency key db: 1/1 running");

        scheduler.send(keyLimit("db", 2));
        List<JournalEntry> raised = read();
        assertThat(JournalEntries.types(raised)).startsWith("LimitSet", "AttemptAssigned");
        assertThat(only(raised, AttemptAssigned.class).getTaskId()).isEqualTo("plain");

        submit("narrow", List.of(new ConcurrencyKey("db", 1)), List.of());
        read();
        assertThat(scheduler.task("narrow").getWaitingReason())
                .as("its own max of 1 is below the 2 running").isEqualTo("concurrency key db: 2/1 running");
        assertFoldIsStores();
    }

    @Test
    void aBucketRefillsOnTheRateTickBetweenTicks() {
        scheduler.send(rateLimit("openai", 10.0, 1));
        scheduler.send(register("w1", 4));
        for (int i = 1; i <= 3; i++) {
            submit("c" + i, List.of(), List.of(new RateLimitUse("openai", 1)));
        }
        read();
        assertThat(runningIds()).containsExactly("c1");
        assertThat(scheduler.task("c2").getWaitingReason()).startsWith("rate limit openai: 0 of 10/s left, next in");

        // Well within the 1 s tick interval, the 20 ms rate tick starts one task per 100 ms.
        for (int ms = 20; ms <= 240; ms += 20) {
            advanceTo(T0.plusMillis(ms));
            read();
        }
        assertThat(runningIds()).containsExactly("c1", "c2", "c3");
        List<Instant> assigned = all(journal, AttemptAssigned.class).stream().map(AttemptAssigned::getAssignedAt).toList();
        assertThat(Duration.between(assigned.get(0), assigned.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        assertThat(Duration.between(assigned.get(1), assigned.get(2))).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        assertThat(Duration.between(assigned.get(0), assigned.get(2))).isLessThan(Duration.ofMillis(300));
        assertFoldIsStores();
    }

    @Test
    void aTaskNamingAnUndefinedRateLimitIsPlacedWhenItIsDefined() {
        scheduler.send(register("w1", 1));
        submit("s1", List.of(), List.of(new RateLimitUse("search", 2)));
        List<JournalEntry> waiting = read();
        assertThat(only(waiting, TaskWaiting.class).getReason())
                .isEqualTo("rate limit search is not defined in pool llm: the task waits until an admin defines it");

        scheduler.send(rateLimit("search", 1.0, 2));
        assertThat(only(read(), AttemptAssigned.class).getTaskId()).isEqualTo("s1");
        assertFoldIsStores();
    }

    @Test
    void malformedLimitsOnTheTopicAreRejectedNamingTheField() {
        scheduler.send(LimitSet.newBuilder().setPool(POOL).setKind(LimitKind.RATE_LIMIT).setName("openai")
                .setPerSecond(0.0).setSetAt(T0).build());
        InputRejected rate = only(read(), InputRejected.class);
        assertThat(rate.getInputType()).isEqualTo("LimitSet");
        assertThat(rate.getField()).isEqualTo("perSecond");

        submit("bad", List.of(new ConcurrencyKey("customer 42", 1)), List.of());
        InputRejected key = only(read(), InputRejected.class);
        assertThat(key.getField()).isEqualTo("concurrency[0].key");
        assertThat(key.getReason()).contains("none of them a space");
        assertThat(scheduler.storeContents(StoreNames.LIMITS)).isEmpty();
    }

    // ---- helpers ----

    private void submit(String id, List<ConcurrencyKey> keys, List<RateLimitUse> rates) {
        scheduler.send(TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setPayload(ByteBuffer.wrap(id.getBytes()))
                .setConcurrency(keys).setRateLimits(rates).setRetry(new RetryPolicy(3, 5_000L, 5_000L, 2.0))
                .setSubmittedAt(T0.plusMillis(++submitted - 10)).build());
    }

    private List<String> runningIds() {
        return running.stream().map(AttemptAssigned::getTaskId).sorted().toList();
    }

    private static LimitSet keyLimit(String key, int max) {
        return LimitSet.newBuilder().setPool(POOL).setKind(LimitKind.CONCURRENCY_KEY).setName(key).setMax(max)
                .setSetBy("admin").setSetAt(T0.minusSeconds(1)).build();
    }

    private static LimitSet rateLimit(String name, double perSecond, int burst) {
        return LimitSet.newBuilder().setPool(POOL).setKind(LimitKind.RATE_LIMIT).setName(name).setPerSecond(perSecond)
                .setBurst(burst).setSetBy("admin").setSetAt(T0.minusSeconds(1)).build();
    }

    private static WorkerRegistered register(String id, int slots) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setSlots(slots).setRegisteredAt(T0).build();
    }

    private void advanceTo(Instant instant) {
        scheduler.advance(Duration.between(clock, instant));
        clock = instant;
    }

    /** The journal since the last read (kept for the fold); the running attempts follow it. */
    private List<JournalEntry> read() {
        List<JournalEntry> entries = scheduler.journal();
        journal.addAll(entries);
        JournalEntries.follow(running, scheduler.assignments(), entries);
        return entries;
    }

    private void assertFoldIsStores() {
        JournalEntries.assertFoldIsStores(journal, scheduler, POOL);
    }
}
