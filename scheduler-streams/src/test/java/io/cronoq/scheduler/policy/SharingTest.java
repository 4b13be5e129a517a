package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.preemption;
import static io.cronoq.scheduler.policy.In.quota;
import static io.cronoq.scheduler.policy.In.share;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.tenantTask;
import static io.cronoq.scheduler.policy.In.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.InputRejected;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskRecord;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sharing a pool between tenants, one rule at a time: weighted fair share of freed slots, a
 * guarantee served first, a max that holds a tenant back (and says so), borrowing and its
 * preemption after the grace (on the scheduler's clock, whatever a producer's says), the pool's
 * switch for preemption, a weight changed mid-run, and the refusal of a malformed policy.
 */
class SharingTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store);
    private final List<AttemptAssigned> running = new ArrayList<>();

    private List<Decision> apply(org.apache.avro.specific.SpecificRecord in) {
        return track(scheduler.apply(in, T0));
    }

    private List<Decision> track(List<Decision> out) {
        running.addAll(Out.all(out, AttemptAssigned.class));
        for (AttemptRevoked r : Out.all(out, AttemptRevoked.class)) {
            running.removeIf(a -> a.getTaskId().equals(r.getTaskId()) && a.getAttempt() == r.getAttempt());
        }
        return out;
    }

    /** Succeeds the oldest running attempt of {@code tenant} and returns what its freed slot caused. */
    private List<Decision> finishOneOf(String tenant) {
        AttemptAssigned a = running.stream().filter(r -> tenant.equals(tenantOf(r.getTaskId()))).findFirst().orElseThrow();
        running.remove(a);
        apply(started(a));
        return apply(succeeded(a));
    }

    private String tenantOf(String taskId) {
        return store.task(taskId).getTask().getTenant();
    }

    private Map<String, Integer> slotsByTenant() {
        Map<String, Integer> held = new HashMap<>();
        for (AttemptAssigned a : running) {
            held.merge(tenantOf(a.getTaskId()), 1, Integer::sum);
        }
        return held;
    }

    private void submit(String tenant, int count, String... labels) {
        for (int i = 0; i < count; i++) {
            apply(tenantTask(tenant + "-" + (i + 1) + (labels.length == 0 ? "" : "-" + labels[0].replace('=', '-')),
                    tenant, labels));
        }
    }

    @Test
    void freedSlotsAreSharedInProportionToTheTenantsWeights() {
        apply(share("b", 3.0));
        submit("a", 20);
        submit("b", 20);

        apply(worker("w1", 8));

        assertThat(slotsByTenant()).containsEntry("a", 2).containsEntry("b", 6);
        // Slots keep their proportion as they free: a's finished attempt goes back to a.
        List<Decision> out = finishOneOf("a");
        assertThat(tenantOf(Out.assigned(out).getTaskId())).isEqualTo("a");
        assertThat(slotsByTenant()).containsEntry("a", 2).containsEntry("b", 6);
    }

    @Test
    void inATenantTodaysOrderHolds() {
        submit("a", 3);
        apply(worker("w1", 1));
        assertThat(running).extracting(AttemptAssigned::getTaskId).containsExactly("a-1");
        finishOneOf("a");
        assertThat(running).extracting(AttemptAssigned::getTaskId).containsExactly("a-2");
    }

    @Test
    void aTenantBelowItsGuaranteeTakesTheNextFreedSlotBeforeAFairerShare() {
        apply(share("research", 100.0));
        apply(share("prod", null, quota(3, null)));
        apply(worker("w1", 4));
        submit("research", 3);
        apply(tenantTask("prod-1", "prod"));
        submit("research", 5); // they wait, and so does the next prod task
        apply(tenantTask("prod-2", "prod"));
        assertThat(slotsByTenant()).containsEntry("research", 3).containsEntry("prod", 1);

        // research (weight 100) is far further below its share than prod, yet prod is below its guarantee.
        List<Decision> out = finishOneOf("research");
        AttemptAssigned next = Out.assigned(out);
        assertThat(next.getTaskId()).isEqualTo("prod-2");
        String cause = out.stream().filter(d -> d.event() == next).findFirst().orElseThrow().cause();
        assertThat(cause).contains("tenant prod is below its guarantee (1/3 slots of the pool)");
        // The line it passed over is told what held the slot.
        assertThat(Out.only(out, TaskWaiting.class).getReason())
                .isEqualTo("slot held for tenant prod (below its guarantee: 1/3 slots of the pool)");
        assertThat(store.task("research-4").getWaitingReason())
                .isEqualTo("slot held for tenant prod (below its guarantee: 1/3 slots of the pool)");
    }

    @Test
    void aTenantAtItsMaxWaitsSayingSoWhileOthersUseTheSlotsItCannot() {
        apply(share("research", null, quota(0, 2, "gpu=a100")));
        apply(worker("gpu1", 4, "gpu=a100"));

        submit("research", 4, "gpu=a100");

        assertThat(slotsByTenant()).containsEntry("research", 2);
        TaskRecord third = store.task("research-3-gpu-a100");
        assertThat(third.getState()).isEqualTo(TaskState.WAITING);
        assertThat(third.getWaitingReason()).isEqualTo("tenant research at its max: 2/2 slots of gpu=a100");
        assertThat(scheduler.classes()).singleElement()
                .satisfies(c -> assertThat(c.reason()).isEqualTo("tenant research at its max: 2/2 slots of gpu=a100"))
                .satisfies(c -> assertThat(c.tenant()).isEqualTo("research"));

        // Another tenant takes the slots research may not.
        apply(tenantTask("prod-1", "prod", "gpu=a100"));
        assertThat(slotsByTenant()).containsEntry("prod", 1);

        // research holds less: its next task runs.
        List<Decision> out = finishOneOf("research");
        assertThat(Out.assigned(out).getTaskId()).isEqualTo("research-3-gpu-a100");
        assertThat(slotsByTenant()).containsEntry("research", 2);
    }

    @Test
    void raisingAMaxPlacesWhatItHeldAtOnce() {
        apply(share("research", null, quota(0, 1)));
        apply(worker("w1", 4));
        submit("research", 3);
        assertThat(slotsByTenant()).containsEntry("research", 1);

        List<Decision> out = apply(share("research", null, quota(0, 3)));

        assertThat(Out.all(out, AttemptAssigned.class)).hasSize(2);
        assertThat(slotsByTenant()).containsEntry("research", 3);
    }

    @Test
    void aRaisedMaxThatFindsNoFreeSlotTellsTheHeadWhyItStillWaits() {
        apply(share("research", null, quota(0, 1)));
        apply(worker("w1", 2));
        apply(tenantTask("r-1", "research"));
        apply(tenantTask("r-2", "research"));
        apply(tenantTask("o-1", "other"));
        assertThat(store.task("r-2").getWaitingReason()).startsWith("tenant research at its max");

        List<Decision> out = apply(share("research", null, quota(0, 2)));

        assertThat(Out.only(out, TaskWaiting.class).getReason()).isEqualTo("1 worker matches; all 2 slots busy; 1st in line");
        assertThat(store.task("r-2").getWaitingReason()).isEqualTo("1 worker matches; all 2 slots busy; 1st in line");
    }

    @Test
    void afterTheGraceTheNewestBorrowedAttemptIsPreemptedForATenantBelowItsGuarantee() {
        apply(share("prod", null, quota(2, null)));
        apply(worker("w1", 4));
        submit("research", 4); // borrows every slot: prod holds nothing and waits for none yet
        submit("prod", 2);
        assertThat(slotsByTenant()).containsEntry("research", 4).doesNotContainKey("prod");

        assertThat(track(scheduler.tick(T0.plusSeconds(29)))).as("within the 30 s grace").isEmpty();
        assertThat(scheduler.nextDue()).isEqualTo(T0.plusSeconds(30));

        List<Decision> out = track(scheduler.tick(T0.plusSeconds(30)));

        List<AttemptRevoked> revoked = Out.all(out, AttemptRevoked.class);
        assertThat(revoked).extracting(AttemptRevoked::getTaskId).containsExactly("research-4", "research-3");
        assertThat(revoked.get(0).getReason()).contains("preempted for tenant prod, below its guarantee (0/2 slots of the pool)")
                .contains("tenant research borrowed this slot");
        assertThat(Out.all(out, TaskFinished.class)).extracting(TaskFinished::getOutcome, TaskFinished::getState)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(AttemptOutcome.PREEMPTED, TaskState.WAITING));
        assertThat(slotsByTenant()).containsEntry("research", 2).containsEntry("prod", 2);
        // A preempted attempt spends none of its task's attempts; it waits at its place in line.
        TaskRecord preempted = store.task("research-4");
        assertThat(preempted.getState()).isEqualTo(TaskState.WAITING);
        assertThat(io.cronoq.scheduler.policy.time.RetryRule.spent(preempted)).isZero();
        assertThat(track(scheduler.tick(T0.plusSeconds(45)))).as("prod holds its guarantee").isEmpty();
    }

    @ParameterizedTest(name = "its producer's clock {0} s off the scheduler's")
    @ValueSource(longs = {-3_600, 3_600})
    void aProducersClockNeitherHastensNorDelaysAPreemption(long offSeconds) {
        Instant heard = T0.plusSeconds(100);
        Instant producerSays = heard.plusSeconds(offSeconds);
        apply(share("prod", null, quota(2, null)));
        apply(worker("w1", 4));
        submit("research", 4);
        for (String id : List.of("prod-1", "prod-2")) {
            TaskSubmitted task = tenantTask(id, "prod");
            task.setSubmittedAt(producerSays);
            track(scheduler.apply(task, heard));
        }
        assertThat(store.task("prod-1").getWaitingSince()).as("shown as its producer said").isEqualTo(producerSays);
        assertThat(store.task("prod-1").getQueuedAt()).as("when the scheduler heard it").isEqualTo(heard);
        assertThat(scheduler.nextDue()).as("the grace ends 30 s after the scheduler heard it")
                .isEqualTo(heard.plusSeconds(30));

        assertThat(track(scheduler.tick(heard.plusSeconds(29)))).as("within the 30 s grace").isEmpty();
        List<Decision> out = track(scheduler.tick(heard.plusSeconds(30)));

        List<AttemptRevoked> revoked = Out.all(out, AttemptRevoked.class);
        assertThat(revoked).extracting(AttemptRevoked::getTaskId).containsExactly("research-4", "research-3");
        assertThat(revoked).extracting(AttemptRevoked::getAt).containsOnly(heard.plusSeconds(30));
        assertThat(slotsByTenant()).containsEntry("research", 2).containsEntry("prod", 2);
        TaskRecord preempted = store.task("research-4");
        assertThat(preempted.getQueuedAt()).as("waits again from the tick that preempted it")
                .isEqualTo(heard.plusSeconds(30));
    }

    @Test
    void aWaitingTaskRecordedByAnOlderReleaseCountsItsGraceFromItsWaitingSince() {
        apply(share("prod", null, quota(1, null)));
        apply(worker("w1", 1));
        submit("research", 1);
        TaskSubmitted task = tenantTask("prod-1", "prod");
        task.setSubmittedAt(T0.minusSeconds(20));
        apply(task);
        TaskRecord older = store.task("prod-1");
        older.setQueuedAt(null); // as a record of a release before queuedAt reads
        store.putTask(older);

        PoolScheduler reloaded = new PoolScheduler(POOL, store);

        assertThat(reloaded.nextDue()).isEqualTo(T0.plusSeconds(10));
        assertThat(Out.all(reloaded.tick(T0.plusSeconds(10)), AttemptRevoked.class))
                .extracting(AttemptRevoked::getTaskId).containsExactly("research-1");
    }

    @Test
    void withPreemptionOffATenantBelowItsGuaranteeWaitsForFreedSlots() {
        apply(preemption(false, 1_000L));
        apply(share("prod", null, quota(2, null)));
        apply(worker("w1", 2));
        submit("research", 2);
        submit("prod", 1);

        assertThat(track(scheduler.tick(T0.plusSeconds(600)))).as("a grace of 1 s long over").isEmpty();
        assertThat(scheduler.nextDue()).isNull();

        List<Decision> out = finishOneOf("research");
        assertThat(tenantOf(Out.assigned(out).getTaskId())).isEqualTo("prod");
    }

    @Test
    void aWeightChangedMidRunShiftsTheSlotsThatFreeAfterIt() {
        submit("a", 20);
        submit("b", 20);
        apply(worker("w1", 4));
        assertThat(slotsByTenant()).containsEntry("a", 2).containsEntry("b", 2);

        apply(share("a", 3.0));
        finishOneOf("b");
        assertThat(slotsByTenant()).containsEntry("a", 3).containsEntry("b", 1);
        finishOneOf("a");
        assertThat(slotsByTenant()).as("3:1 holds").containsEntry("a", 3).containsEntry("b", 1);
    }

    @Test
    void aTaskWhoseDeadlineIsNearGoesBeforeAnyTenantsShare() {
        submit("a", 2);
        apply(worker("w1", 1));
        TaskSubmitted urgent = tenantTask("b-urgent", "b");
        urgent.setDeadline(T0.plusSeconds(10)); // within the default deadline lead: urgent at once
        apply(urgent);
        apply(tenantTask("c-1", "c"));

        List<Decision> out = finishOneOf("a");

        assertThat(Out.assigned(out).getTaskId()).isEqualTo("b-urgent");
    }

    @Test
    void aMalformedPolicyIsRefusedNamingTheFieldAndChangesNothing() {
        List<Decision> out = apply(share("research", null, quota(5, 4)));

        InputRejected rejected = Out.only(out, InputRejected.class);
        assertThat(rejected.getField()).isEqualTo("quotas[0].guaranteed");
        assertThat(rejected.getReason()).contains("above its max 4");
        assertThat(scheduler.sharing().tenants()).isEmpty();
        assertThat(store.sharing()).isNull();
    }

    @Test
    void theSharingViewShowsWeightsQuotasUseAndFairShares() {
        apply(share("b", 3.0, quota(2, 6, "gpu=a100")));
        submit("a", 10);
        submit("b", 10);
        apply(worker("w1", 8, "gpu=a100"));

        SharingSnapshot view = scheduler.sharing();

        assertThat(view.slots()).isEqualTo(8);
        assertThat(view.preemption()).isTrue();
        assertThat(view.tenants()).extracting(SharingSnapshot.TenantShare::tenant).containsExactly("a", "b");
        SharingSnapshot.TenantShare a = view.tenants().get(0);
        SharingSnapshot.TenantShare b = view.tenants().get(1);
        assertThat(a.slotsInUse()).isEqualTo(2);
        assertThat(a.fairShare()).isEqualTo(2.0);
        assertThat(a.waiting()).isEqualTo(8);
        assertThat(a.oldestWaitingSince()).isEqualTo(T0);
        assertThat(b.slotsInUse()).isEqualTo(6);
        assertThat(b.weight()).isEqualTo(3.0);
        assertThat(b.fairShare()).isEqualTo(6.0);
        assertThat(b.quotas()).singleElement().isEqualTo(new SharingSnapshot.QuotaUse(Map.of("gpu", "a100"), 2, 6, 6));
        // A new scheduler over the same store sees the same: policy and use are state.
        assertThat(new PoolScheduler(POOL, store).sharing()).isEqualTo(view);
    }

    @Test
    void theWaitingReasonOfATenantHeldByItsMaxIsJournaledOncePerClass() {
        apply(share("research", null, quota(0, 1)));
        apply(worker("w1", 3));
        apply(tenantTask("r-1", "research"));
        List<Decision> second = apply(tenantTask("r-2", "research"));
        assertThat(Out.only(second, TaskWaiting.class).getReason()).isEqualTo("tenant research at its max: 1/1 slots of the pool");
        List<Decision> third = apply(tenantTask("r-3", "research"));
        assertThat(Out.only(third, TaskWaiting.class).getReason()).isEqualTo("tenant research at its max: 1/1 slots of the pool");
        List<Decision> other = apply(tenantTask("o-1", "other"));
        assertThat(Out.all(other, TaskWaiting.class)).as("no head told again").isEmpty();
    }

    @SuppressWarnings("unused")
    private static Instant at(int seconds) {
        return T0.plusSeconds(seconds);
    }
}
