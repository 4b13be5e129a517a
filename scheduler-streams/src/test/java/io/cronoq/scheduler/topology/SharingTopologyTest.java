package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.topology.JournalEntries.all;
import static io.cronoq.scheduler.topology.JournalEntries.only;
import static io.cronoq.scheduler.topology.JournalEntries.types;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.SharingRecord;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TenantQuota;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import io.cronoq.schemas.events.Journal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sharing a pool between tenants through the whole topology: the policy set as an input event on
 * the submissions topic and kept in the sharing store, borrowing of idle slots, a guarantee served
 * first when slots free, a max, preemption after the grace on the scheduler's clock (the worker
 * told on its assignments partition, whatever clock the inputs' producers have, the journal saying
 * when the scheduler heard each input), a weight changed mid-run; after each, the journal folds to
 * what the stores hold.
 */
class SharingTopologyTest {

    private static final String POOL = "gpu";
    private static final Instant T0 = Instant.parse("2026-06-01T08:00:00Z");

    private final SchedulerDriver scheduler = new SchedulerDriver(Map.of(), T0);
    private final List<JournalEntry> journal = new ArrayList<>();
    private final List<AttemptAssigned> running = new ArrayList<>();
    private final Map<String, String> tenants = new HashMap<>();
    private int submitted;
    private Instant clock = T0;

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aTenantBorrowsIdleSlotsBeyondItsGuaranteeAndTheOwnerTakesFreedSlotsBackFirst() {
        scheduler.send(policy("prod", null, quota(3, null)));
        scheduler.send(register("w1", 4));
        submit("research", 6);
        read();
        assertThat(held()).as("research borrows every idle slot").containsEntry("research", 4);

        submit("prod", 2);
        read();
        finishOne("research");
        finishOne("research");

        assertThat(held()).as("each freed slot went to prod, below its guarantee").containsEntry("prod", 2)
                .containsEntry("research", 2);
        assertThat(scheduler.storeContents(StoreNames.SHARING)).singleElement()
                .satisfies(kv -> assertThat(((SharingRecord) kv.value).getTenants()).extracting(t -> t.getTenant())
                        .containsExactly("prod"));
        assertFoldIsStores();
    }

    @Test
    void afterTheGraceOnTheSchedulersClockABorrowedAttemptIsPreemptedAndItsWorkerTold() {
        scheduler.send(policy(null, null, null, true, 10_000L));
        scheduler.send(policy("prod", null, quota(1, null)));
        scheduler.send(register("w1", 2));
        submit("research", 3);
        submit("prod", 1);
        read();
        assertThat(held()).containsEntry("research", 2).doesNotContainKey("prod");

        advanceTo(T0.plusSeconds(9));
        assertThat(read()).as("within the 10 s grace").isEmpty();
        advanceTo(T0.plusSeconds(11)); // prod's task waits since it was submitted, a few ms after T0

        List<JournalEntry> preempted = read();
        assertThat(types(preempted)).containsExactly("AttemptRevoked", "TaskFinished", "AttemptAssigned", "TaskWaiting");
        io.cronoq.events.TaskWaiting waits = only(preempted, io.cronoq.events.TaskWaiting.class);
        assertThat(waits.getTaskId()).as("the preempted task waits again").isEqualTo("research-2");
        assertThat(waits.getReason()).isEqualTo("slot held for tenant prod (below its guarantee: 0/1 slots of the pool)");
        AttemptRevoked revoked = only(preempted, AttemptRevoked.class);
        assertThat(revoked.getTaskId()).isEqualTo("research-2");
        assertThat(revoked.getReason()).startsWith("preempted for tenant prod, below its guarantee (0/1 slots of the pool)");
        TaskFinished finished = only(preempted, TaskFinished.class);
        assertThat(finished.getOutcome()).isEqualTo(AttemptOutcome.PREEMPTED);
        assertThat(finished.getState()).isEqualTo(TaskState.WAITING);
        assertThat(tenants.get(only(preempted, AttemptAssigned.class).getTaskId())).isEqualTo("prod");
        assertThat(scheduler.task("research-2").getAttempts()).extracting(a -> a.getOutcome())
                .containsExactly(AttemptOutcome.PREEMPTED);
        assertFoldIsStores();
    }

    @ParameterizedTest(name = "inputs stamped {0} s off the scheduler's clock")
    @ValueSource(longs = {-3_600, 3_600})
    void aProducersClockNeitherHastensNorDelaysAPreemptionAndTheJournalSaysWhenEachInputWasHeard(long offSeconds) {
        Instant producers = T0.plusSeconds(offSeconds);
        sendAt(policy(null, null, null, true, 10_000L), producers);
        sendAt(policy("prod", null, quota(1, null)), producers);
        sendAt(register("w1", 2), producers);
        for (String tenant : List.of("research", "research", "research", "prod")) {
            String id = tenant + "-" + (1 + tenants.values().stream().filter(tenant::equals).count());
            tenants.put(id, tenant);
            Instant submittedAt = producers.plusMillis(++submitted);
            sendAt(TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(Map.of())
                    .setPayload(ByteBuffer.wrap(id.getBytes())).setTenant(tenant).setSubmittedAt(submittedAt)
                    .build(), submittedAt);
        }
        List<JournalEntry> inputs = readRecords();
        assertThat(held()).containsEntry("research", 2).doesNotContainKey("prod");
        assertThat(inputs).as("one record per input, stamped by its producer, heard on the scheduler's clock")
                .hasSize(7).allSatisfy(r -> {
                    assertThat(r.getAt()).isBetween(producers, producers.plusMillis(submitted));
                    assertThat(r.getHeardAt()).isEqualTo(T0);
                });
        assertThat(scheduler.task("prod-1").getQueuedAt()).isEqualTo(T0);

        advanceTo(T0.plusMillis(9_999));
        assertThat(readRecords()).as("within the 10 s grace, counted from when the scheduler heard prod-1").isEmpty();
        advanceTo(T0.plusSeconds(10));

        List<JournalEntry> ticked = readRecords();
        assertThat(ticked).as("what the tick decided, in one record").hasSize(1);
        JournalEntry preempted = ticked.get(0);
        assertThat(types(Journal.entries(preempted)))
                .containsExactly("AttemptRevoked", "TaskFinished", "AttemptAssigned", "TaskWaiting");
        assertThat(preempted.getAt()).as("the tick's time, the grace's end").isEqualTo(T0.plusSeconds(10));
        assertThat(preempted.getHeardAt()).as("a tick's time is the scheduler's clock").isNull();
        assertThat(((AttemptRevoked) preempted.getEvent()).getTaskId()).isEqualTo("research-2");
        assertThat(held()).containsEntry("research", 1).containsEntry("prod", 1);
        assertFoldIsStores();
    }

    @Test
    void aTenantAtItsMaxWaitsWhileAnotherUsesTheSlotsAndAMaxRaisedPlacesItAtOnce() {
        scheduler.send(policy("research", null, quota(0, 1, "gpu", "a100")));
        scheduler.send(register("a100-1", 3, "gpu", "a100"));
        submit("research", 3, "gpu", "a100");
        read();
        assertThat(held()).containsEntry("research", 1);
        assertThat(scheduler.task("research-2").getWaitingReason())
                .isEqualTo("tenant research at its max: 1/1 slots of gpu=a100");

        submit("prod", 1, "gpu", "a100");
        read();
        assertThat(held()).containsEntry("prod", 1);

        scheduler.send(policy("research", null, quota(0, 2, "gpu", "a100")));
        read();
        assertThat(held()).containsEntry("research", 2).containsEntry("prod", 1);
        assertFoldIsStores();
    }

    @Test
    void aWeightChangedMidRunSharesTheSlotsThatFreeAfterIt() {
        submit("a", 12);
        submit("b", 12);
        scheduler.send(register("w1", 4));
        read();
        assertThat(held()).containsEntry("a", 2).containsEntry("b", 2);

        scheduler.send(policy("b", 3.0, null));
        finishOne("a");
        finishOne("a");
        finishOne("b");

        assertThat(held()).containsEntry("a", 1).containsEntry("b", 3);
        assertFoldIsStores();
    }

    @Test
    void withManyTenantsWeightedGuaranteedAndBoundedTheJournalFoldsToTheStores() {
        for (int t = 0; t < 150; t++) {
            scheduler.send(policy("team-" + t, 1.0 + t % 4, t % 10 == 1 ? quota(1, null)
                    : t % 10 == 2 ? quota(0, 1, "disk", "ssd") : null));
        }
        scheduler.send(register("w1", 8, "disk", "ssd"));
        scheduler.send(register("w2", 8));
        for (int t = 0; t < 150; t++) {
            submit("team-" + t, 2, t % 3 == 0 ? new String[] {"disk", "ssd"} : new String[0]);
        }
        read();
        for (int round = 0; round < 60; round++) {
            finishOne(tenants.get(running.get(0).getTaskId()));
        }

        assertThat(held().values().stream().mapToInt(Integer::intValue).sum()).as("every slot busy").isEqualTo(16);
        assertThat(held().keySet()).as("the slots went round the tenants").hasSizeGreaterThan(10);
        assertFoldIsStores();
    }

    @Test
    void aMalformedPolicyOnTheTopicIsRejectedNamingTheField() {
        scheduler.send(policy("research", -1.0, null));

        InputRejected rejected = only(read(), InputRejected.class);
        assertThat(rejected.getInputType()).isEqualTo("SharingPolicySet");
        assertThat(rejected.getField()).isEqualTo("weight");
        assertThat(scheduler.storeContents(StoreNames.SHARING)).isEmpty();
    }

    // ---- helpers ----

    private void submit(String tenant, int count, String... labels) {
        for (int i = 0; i < count; i++) {
            String id = tenant + "-" + (1 + tenants.values().stream().filter(tenant::equals).count());
            tenants.put(id, tenant);
            scheduler.send(TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(labels(labels))
                    .setPayload(ByteBuffer.wrap(id.getBytes())).setTenant(tenant)
                    .setSubmittedAt(T0.plusMillis(++submitted)).build());
        }
    }

    private void finishOne(String tenant) {
        AttemptAssigned a = running.stream().filter(r -> tenant.equals(tenants.get(r.getTaskId()))).findFirst()
                .orElseThrow();
        scheduler.send(AttemptSucceeded.newBuilder().setTaskId(a.getTaskId()).setPool(POOL).setAttempt(a.getAttempt())
                .setWorkerId(a.getWorkerId()).setGeneration(a.getGeneration()).setAt(clock).build());
        read();
    }

    private Map<String, Integer> held() {
        Map<String, Integer> held = new HashMap<>();
        for (AttemptAssigned a : running) {
            held.merge(tenants.get(a.getTaskId()), 1, Integer::sum);
        }
        return held;
    }

    private static SharingPolicySet policy(String tenant, Double weight, List<TenantQuota> quotas) {
        return policy(tenant, weight, quotas, null, null);
    }

    private static SharingPolicySet policy(String tenant, Double weight, List<TenantQuota> quotas, Boolean preemption,
                                           Long graceMs) {
        return SharingPolicySet.newBuilder().setPool(POOL).setTenant(tenant).setWeight(weight).setQuotas(quotas)
                .setPreemption(preemption).setPreemptionGraceMs(graceMs).setSetBy("admin").setSetAt(T0).build();
    }

    private static List<TenantQuota> quota(int guaranteed, Integer max, String... scope) {
        return List.of(new TenantQuota(labels(scope), guaranteed, max));
    }

    private static Map<String, String> labels(String... nameValues) {
        Map<String, String> labels = new HashMap<>();
        for (int i = 0; i < nameValues.length; i += 2) {
            labels.put(nameValues[i], nameValues[i + 1]);
        }
        return labels;
    }

    private static WorkerRegistered register(String id, int slots, String... labels) {
        return WorkerRegistered.newBuilder().setWorkerId(id).setPool(POOL).setLabels(labels(labels)).setSlots(slots)
                .setRegisteredAt(T0).build();
    }

    private void advanceTo(Instant instant) {
        scheduler.advance(Duration.between(clock, instant));
        clock = instant;
    }

    private void sendAt(org.apache.avro.specific.SpecificRecord event, Instant timestamp) {
        scheduler.sendAt(event, timestamp);
    }

    /** The journal's records since the last read, as written (their entries kept for the fold, as {@link #read}). */
    private List<JournalEntry> readRecords() {
        List<JournalEntry> records = scheduler.journalRecords();
        List<JournalEntry> entries = records.stream().flatMap(r -> Journal.entries(r).stream()).toList();
        journal.addAll(entries);
        JournalEntries.follow(running, scheduler.assignments(), entries);
        return records;
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
