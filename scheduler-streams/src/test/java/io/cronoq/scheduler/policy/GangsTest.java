package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.POOL;
import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.cancel;
import static io.cronoq.scheduler.policy.In.failed;
import static io.cronoq.scheduler.policy.In.quota;
import static io.cronoq.scheduler.policy.In.share;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.task;
import static io.cronoq.scheduler.policy.In.worker;
import static io.cronoq.scheduler.policy.Out.all;
import static io.cronoq.scheduler.policy.Out.only;
import static io.cronoq.scheduler.policy.Out.workersOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.DuplicateSubmission;
import io.cronoq.events.GangPeer;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.InputRejected;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Gangs}: all members placed in one decision or none, and a gang's attempt ending as one. */
class GangsTest {

    private final InMemoryPoolStore store = InMemoryPoolStore.copying();
    /** Workers that never heartbeat in these tests stay for an hour: what a tick decides here is the gangs'. */
    private static final TimeRules RULES = new TimeRules(3_600_000, 30_000, 600_000, 300_000, 60_000,
            TimeRules.DEFAULT_RETENTION_MS);
    private final PoolScheduler scheduler = new PoolScheduler(POOL, store, RULES);

    /** A gang of {@code size} copies of a task requiring {@code required}. */
    static GangSubmitted gang(String id, int size, GangPlacement layout, String sameLabel, String... required) {
        List<TaskSubmitted> members = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            TaskSubmitted member = task(id + "-" + rank, required);
            member.setTimeoutMs(null);
            members.add(member);
        }
        return new GangSubmitted(id, POOL, layout, sameLabel, members, "tests", T0);
    }

    private List<Decision> apply(Object input, int second) {
        return scheduler.apply((org.apache.avro.specific.SpecificRecord) input, T0.plusSeconds(second));
    }

    private static WorkerRegistered at(WorkerRegistered w, String address) {
        w.setAddress(address);
        return w;
    }

    /** A single task without a lease: it ends when the test says. */
    private static TaskSubmitted single(String id) {
        TaskSubmitted task = task(id);
        task.setTimeoutMs(null);
        return task;
    }

    private TaskState state(String id) {
        return store.task(id).getState();
    }

    @Test
    void aSpreadGangIsAssignedWholeInOneDecisionEachMemberToldItsPeers() {
        for (int i = 0; i < 4; i++) {
            apply(at(worker("w" + i, 2), "10.0.0." + i), 0);
        }
        List<Decision> out = apply(gang("train", 4, GangPlacement.SPREAD, null), 1);

        List<AttemptAssigned> assigned = all(out, AttemptAssigned.class);
        assertThat(assigned).hasSize(4);
        assertThat(new HashSet<>(workersOf(out))).as("one member per worker").hasSize(4);
        List<GangPeer> peers = assigned.get(0).getGang().getPeers();
        for (int rank = 0; rank < 4; rank++) {
            AttemptAssigned a = assigned.get(rank);
            assertThat(a.getTaskId()).isEqualTo("train-" + rank);
            assertThat(a.getGang().getRank()).isEqualTo(rank);
            assertThat(a.getGang().getSize()).isEqualTo(4);
            assertThat(a.getGang().getPeers()).as("every member is told the same peers").isEqualTo(peers);
            assertThat(peers.get(rank).getWorkerId()).isEqualTo(a.getWorkerId());
            assertThat(peers.get(rank).getAddress()).isEqualTo("10.0.0." + a.getWorkerId().substring(1));
            assertThat(store.task("train-" + rank).getTask().getGang().getGangId()).isEqualTo("train");
        }
    }

    @Test
    void aRegistrationWhoseAddressPeersCouldNotDialIsRefusedNamingTheField() {
        List<Decision> out = apply(at(worker("w1", 2), "10.0.0.1,10.0.0.2"), 0);

        InputRejected rejected = only(out, InputRejected.class);
        assertThat(rejected.getField()).isEqualTo("address");
        assertThat(rejected.getReason()).contains("must not contain ','");
        assertThat(scheduler.worker("w1")).isNull();
    }

    @Test
    void aGangThatDoesNotFitHoldsNothingAndStartsWholeWhenItFits() {
        apply(worker("w1", 2), 0);
        apply(worker("w2", 1), 0);
        AttemptAssigned single = Out.assigned(apply(task("single"), 0));
        List<Decision> out = apply(gang("g", 3, GangPlacement.ANY, null), 1);

        assertThat(all(out, AttemptAssigned.class)).as("no member holds a slot").isEmpty();
        assertThat(all(out, TaskWaiting.class)).hasSize(3);
        assertThat(store.task("g-0").getWaitingReason())
                .isEqualTo("gang g needs 3 slots; 2 such workers have a free slot (2 free slots): "
                        + "it starts when all its members fit at once");
        assertThat(scheduler.snapshot().busy()).isOne();

        List<Decision> freed = apply(succeeded(single), 2);
        assertThat(all(freed, AttemptAssigned.class)).hasSize(3);
        for (int rank = 0; rank < 3; rank++) {
            assertThat(state("g-" + rank)).isEqualTo(TaskState.ASSIGNED);
        }
    }

    @Test
    void aWaitingGangCountsInThePoolsWaitingAndDemandAndShowsAsAClassWithItsReason() {
        apply(worker("w1", 1, "gpu=a100"), 0);
        apply(gang("big", 3, GangPlacement.SPREAD, null, "gpu=a100"), 1);

        PoolSnapshot snapshot = scheduler.snapshot();
        assertThat(snapshot.waiting()).isEqualTo(3);
        assertThat(snapshot.groups()).singleElement().satisfies(g -> assertThat(g.waiting()).isEqualTo(3));
        assertThat(scheduler.classes()).hasSize(1);
        ClassSnapshot c = scheduler.classes().get(0);
        assertThat(c.waiting()).isEqualTo(3);
        assertThat(c.headTaskId()).isEqualTo("big-0");
        assertThat(c.workers()).isEqualTo(1);
        assertThat(c.reason()).startsWith("gang big needs 3 slots on workers with gpu=a100");

        apply(worker("w2", 1, "gpu=a100"), 2);
        apply(worker("w3", 1, "gpu=a100"), 2);
        assertThat(scheduler.snapshot().waiting()).isZero();
        assertThat(scheduler.classes()).isEmpty();
    }

    @Test
    void aGangTheWorkersCouldNeverHoldSaysSoAndWaitsForMoreWorkers() {
        apply(worker("w1", 4, "gpu=a100"), 0);
        apply(worker("w2", 4, "gpu=a100"), 0);
        apply(gang("big", 3, GangPlacement.SPREAD, null, "gpu=a100"), 1);

        assertThat(store.task("big-0").getWaitingReason()).isEqualTo("gang big needs 3 slots on workers with gpu=a100, "
                + "one per worker (spread); the workers registered now could never hold it all (2 such workers, "
                + "8 slots): it waits until enough register");

        assertThat(all(apply(worker("w3", 1, "gpu=a100"), 2), AttemptAssigned.class)).hasSize(3);
    }

    @Test
    void packPutsTheMembersOnAsFewWorkersAsPossible() {
        apply(worker("small1", 2), 0);
        apply(worker("small2", 2), 0);
        apply(worker("big", 4), 0);
        List<Decision> out = apply(gang("p", 4, GangPlacement.PACK, null), 1);
        assertThat(workersOf(out)).containsExactly("big", "big", "big", "big");
    }

    @Test
    void sameLabelPutsEveryMemberOnOneValueOfTheLabel() {
        apply(worker("a1", 1, "rack=a"), 0);
        apply(worker("a2", 1, "rack=a"), 0);
        apply(worker("b1", 1, "rack=b"), 0);
        apply(worker("b2", 1, "rack=b"), 0);
        apply(worker("b3", 1, "rack=b"), 0);
        List<Decision> out = apply(gang("r", 3, GangPlacement.ANY, "rack"), 1);
        assertThat(workersOf(out)).containsExactlyInAnyOrder("b1", "b2", "b3");
    }

    @Test
    void aGangGoesBeforeSingleTasksWhenSlotsFreeForIt() {
        apply(gang("g", 2, GangPlacement.ANY, null), 0);
        apply(task("single-1"), 0);
        List<Decision> out = apply(worker("w1", 2), 1);
        assertThat(all(out, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                .containsExactly("g-0", "g-1");
        assertThat(state("single-1")).isEqualTo(TaskState.WAITING);
    }

    @Test
    void aGangThatKeepsLosingToSingleTasksReservesTheSlotsThatFreeAndStartsWhenItHasThemAll() {
        apply(worker("w1", 2), 0);
        AttemptAssigned s1 = Out.assigned(apply(single("s1"), 0));
        AttemptAssigned s2 = Out.assigned(apply(single("s2"), 0));
        apply(gang("g", 2, GangPlacement.ANY, null), 1);
        for (int i = 3; i <= 6; i++) {
            apply(single("s" + i), 1); // a stream of single tasks that would take each slot as it frees
        }

        assertThat(all(apply(succeeded(s1), 30), AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                .as("before the gang may reserve, the freed slot goes to the next single task").containsExactly("s3");
        List<Decision> reserving = scheduler.tick(T0.plusSeconds(61));
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 2 slots; reserving since "
                + "2026-01-01T00:01:01Z (0 of 2 held): slots that free where it goes are kept for it");
        assertThat(all(reserving, TaskWaiting.class)).hasSize(1);

        List<Decision> held = apply(succeeded(s2), 62);
        assertThat(all(held, AttemptAssigned.class)).as("the freed slot is held for the gang").isEmpty();
        assertThat(scheduler.snapshot().busy()).isOne();

        AttemptAssigned s3 = all(apply(single("late"), 63), AttemptAssigned.class).stream().findFirst().orElse(null);
        assertThat(s3).as("a new single task does not take the held slot either").isNull();

        List<Decision> out = apply(succeeded(firstAssigned("s3")), 64);
        assertThat(all(out, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId).containsExactly("g-0", "g-1");
    }

    @Test
    void aGangWhoseMembersNameAConcurrencyKeyStartsOnlyWhenTheKeyHoldsThemAllAtOnce() {
        apply(worker("w1", 4), 0);
        AttemptAssigned single = Out.assigned(apply(In.keyed(single("s1"), "licence", 2), 0));
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> In.keyed(m, "licence", 2));

        List<Decision> waiting = apply(g, 1);

        assertThat(all(waiting, AttemptAssigned.class)).as("two free slots, but the key holds one more at most").isEmpty();
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 2 slots; concurrency key licence: 1/2 "
                + "running, and 2 members need it at once");

        List<Decision> freed = apply(succeeded(single), 2);
        assertThat(all(freed, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId).containsExactly("g-0", "g-1");

        List<Decision> next = apply(In.keyed(single("s2"), "licence", 2), 3);
        assertThat(all(next, AttemptAssigned.class)).as("each member holds the key while it runs").isEmpty();
        assertThat(state("s2")).isEqualTo(TaskState.WAITING);
    }

    @Test
    void aGangWhoseMembersTakeRateLimitUnitsWaitsUntilTheBucketHoldsThemAll() {
        apply(worker("w1", 4), 0);
        apply(In.rateLimit("openai", 1.0, 2, T0), 0);
        AttemptAssigned single = Out.assigned(apply(In.rated(single("s1"), "openai", 1), 0));
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> In.rated(m, "openai", 1));

        apply(g, 0);

        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 2 slots; rate limit openai: 1 of 1/s "
                + "left, the members take 2 at once, next in 1s");
        assertThat(scheduler.nextDue()).isEqualTo(T0.plusSeconds(1));
        List<Decision> refilled = scheduler.tick(T0.plusSeconds(1));
        assertThat(all(refilled, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId).containsExactly("g-0", "g-1");
        assertThat(single.getTaskId()).isEqualTo("s1");
    }

    @Test
    void aGangNeedingMoreRateLimitUnitsThanTheBurstWaitsForAnAdminSayingSo() {
        apply(worker("w1", 4), 0);
        apply(In.rateLimit("openai", 1.0, 2, T0), 0);
        GangSubmitted g = gang("g", 3, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> In.rated(m, "openai", 1));

        assertThat(all(apply(g, 0), AttemptAssigned.class)).isEmpty();
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 3 slots; rate limit openai holds at "
                + "most 2 units (its burst) and the members take 3 at once: it waits until an admin raises the burst");

        List<Decision> raised = apply(In.rateLimit("openai", 1.0, 3, T0.plusSeconds(5)), 5);
        assertThat(all(raised, AttemptAssigned.class)).as("the bucket holds 2 of the 3 units").isEmpty();
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 3 slots; rate limit openai: 2 of 1/s "
                + "left, the members take 3 at once, next in 1s");
        assertThat(all(scheduler.tick(T0.plusSeconds(6)), AttemptAssigned.class)).hasSize(3);
    }

    /** The attempt succeeded {@code second} seconds after {@code T0}. */
    private static io.cronoq.events.AttemptSucceeded succeededAt(AttemptAssigned a, int second) {
        io.cronoq.events.AttemptSucceeded done = succeeded(a);
        done.setAt(T0.plusSeconds(second));
        return done;
    }

    /** A single task whose lease is {@code timeoutSeconds} long. */
    private static TaskSubmitted leased(String id, long timeoutSeconds) {
        TaskSubmitted task = task(id);
        task.setTimeoutMs(timeoutSeconds * 1000);
        return task;
    }

    @Test
    void aHeldSlotRunsASingleTaskSureToEndBeforeTheGangIsSureOfAllItsSlots() {
        apply(worker("w1", 3), 0);
        apply(leased("long", 600), 0); // runs at most 10 minutes: the gang is sure of its third slot at 00:10:00
        AttemptAssigned s1 = Out.assigned(apply(leased("s1", 600), 0));
        apply(leased("s2", 600), 0);
        apply(gang("g", 3, GangPlacement.ANY, null), 1);
        apply(leased("too-long", 900), 2); // would end after the gang is sure of its slots
        apply(leased("medium", 400), 2); // would end before that, but after the reservation (00:06:01)
        apply(leased("short", 120), 3);
        scheduler.tick(T0.plusSeconds(61)); // it reserves

        List<Decision> freed = apply(succeededAt(s1, 62), 62);

        AttemptAssigned backfilled = only(freed, AttemptAssigned.class);
        assertThat(backfilled.getTaskId()).as("too-long and medium are first in line but would delay the gang")
                .isEqualTo("short");
        Decision d = freed.stream().filter(x -> x.event() instanceof AttemptAssigned).findFirst().orElseThrow();
        assertThat(d.cause()).isEqualTo("backfilled on a slot held for gang g: this task's lease ends by "
                + "2026-01-01T00:03:02Z, before the gang can be sure of all its slots (2026-01-01T00:10:00Z, the leases "
                + "of the tasks running there) and before its reservation ends (2026-01-01T00:06:01Z)");
        assertThat(state("too-long")).isEqualTo(TaskState.WAITING);
        assertThat(state("medium")).isEqualTo(TaskState.WAITING);
        assertThat(store.task("g-0").getState()).isEqualTo(TaskState.WAITING);
    }

    @Test
    void withoutLeasesOnTheRunningTasksAHeldSlotIdles() {
        apply(worker("w1", 2), 0);
        AttemptAssigned s1 = Out.assigned(apply(single("s1"), 0)); // no timeout: when it ends is not known
        apply(single("s2"), 0);
        apply(gang("g", 2, GangPlacement.ANY, null), 1);
        apply(leased("short", 1), 2);
        scheduler.tick(T0.plusSeconds(61));

        List<Decision> freed = apply(succeededAt(s1, 62), 62);

        assertThat(all(freed, AttemptAssigned.class)).as("when the gang would start is not known").isEmpty();
        assertThat(state("short")).isEqualTo(TaskState.WAITING);
    }

    @Test
    void aGangThatFitsTakesItsTurnByItsTenantsShare() {
        apply(worker("w1", 4), 0);
        AttemptAssigned b1 = Out.assigned(apply(In.tenantTask("b-1", "b"), 0));
        apply(In.tenantTask("b-2", "b"), 0);
        apply(In.tenantTask("b-3", "b"), 0);
        AttemptAssigned a1 = Out.assigned(apply(In.tenantTask("a-1", "a"), 0));
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setTenant("b"));
        apply(g, 1);
        apply(In.tenantTask("a-2", "a"), 2);

        List<Decision> grown = apply(worker("w2", 2), 3);

        assertThat(all(grown, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                .as("a holds 1 of 6 slots and b 3: a's task goes first").containsExactly("a-2");
        assertThat(store.task("g-0").getWaitingReason()).as("one slot is left: the gang no longer fits")
                .startsWith("gang g needs 2 slots; 1 such worker has a free slot");

        assertThat(Out.assigned(apply(In.tenantTask("a-3", "a"), 4)).getTaskId()).isEqualTo("a-3");
        assertThat(all(apply(succeededAt(b1, 5), 5), AttemptAssigned.class)).as("one free slot").isEmpty();
        List<Decision> freed = apply(succeededAt(a1, 6), 6);
        assertThat(all(freed, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId)
                .as("two free slots and no smaller share waiting").containsExactly("g-0", "g-1");
    }

    @Test
    void aGangWaitingItsTurnSaysSoAndReservesAfterItsWait() {
        apply(worker("w1", 2), 0);
        apply(In.tenantTask("b-1", "b"), 0);
        apply(In.tenantTask("b-2", "b"), 0);
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setTenant("b"));
        apply(g, 1);
        apply(In.tenantTask("a-1", "a"), 1);
        apply(In.tenantTask("a-2", "a"), 1);
        apply(In.tenantTask("a-3", "a"), 1);

        List<Decision> grown = apply(worker("w2", 2), 2); // two free slots: the gang fits, but a waits with a smaller share

        assertThat(all(grown, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId).containsExactly("a-1", "a-2");
        assertThat(all(grown, TaskWaiting.class)).extracting(TaskWaiting::getReason).contains("gang g needs 2 slots; it "
                + "fits, but tenant a has a smaller share and waits for these slots: the gang takes its turn by its tenant's "
                + "share, and reserves its slots from 2026-01-01T00:01:01Z");
    }

    @Test
    void aReservationThatRunsOutGivesItsSlotsBack() {
        scheduler.apply(worker("w1", 2), T0);
        apply(single("s1"), 0);
        AttemptAssigned s2 = Out.assigned(apply(single("s2"), 0));
        apply(gang("g", 2, GangPlacement.ANY, null), 1);
        apply(single("s3"), 1);
        scheduler.tick(T0.plusSeconds(61)); // it reserves
        apply(succeeded(s2), 62); // held for the gang

        List<Decision> over = scheduler.tick(T0.plusSeconds(61 + 300));
        assertThat(all(over, AttemptAssigned.class)).extracting(AttemptAssigned::getTaskId).containsExactly("s3");
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 2 slots; its reservation ended after 5m with 1 of 2 slots held: they go back to "
                        + "single tasks, and it reserves again from 2026-01-01T00:07:01Z");
    }

    private AttemptAssigned firstAssigned(String taskId) {
        var attempt = store.task(taskId).getAttempts().get(0);
        return new AttemptAssigned(taskId, POOL, attempt.getAttempt(), attempt.getWorkerId(), attempt.getGeneration(),
                attempt.getGroup(), java.nio.ByteBuffer.allocate(0), null, null, attempt.getAssignedAt(), null, null, new java.util.HashMap<>());
    }

    @Test
    void aMemberThatFailsRevokesTheOthersAndTheGangRunsAgainWholeAfterItsBackoff() {
        for (int i = 0; i < 3; i++) {
            apply(worker("w" + i, 1), 0);
        }
        List<AttemptAssigned> first = all(apply(gang("g", 3, GangPlacement.SPREAD, null), 1), AttemptAssigned.class);
        first.forEach(a -> apply(started(a), 2));

        AttemptFailed crashed = failed(first.get(1), "rank 1 crashed", true);
        crashed.setAt(T0.plusSeconds(3));
        List<Decision> out = apply(crashed, 3);

        List<AttemptRevoked> revoked = all(out, AttemptRevoked.class);
        assertThat(revoked).extracting(AttemptRevoked::getTaskId).containsExactly("g-0", "g-2");
        assertThat(revoked.get(0).getReason()).isEqualTo("gang g: member g-1 failed");
        assertThat(out).filteredOn(d -> d.event() instanceof AttemptRevoked)
                .extracting(Decision::worker).containsExactly(first.get(0).getWorkerId(), first.get(2).getWorkerId());
        assertThat(all(out, AttemptAssigned.class)).as("not before the backoff").isEmpty();
        for (int rank = 0; rank < 3; rank++) {
            assertThat(state("g-" + rank)).isEqualTo(TaskState.WAITING);
        }
        assertThat(scheduler.snapshot().busy()).as("no member holds a slot while the gang waits").isZero();
        assertThat(store.task("g-0").getWaitingReason()).startsWith("gang attempt 2 of at most 3, after gang g: "
                + "member g-1 failed; after a backoff of 1s: it waits until ");

        assertThat(scheduler.nextDue()).isEqualTo(T0.plusSeconds(4));
        List<AttemptAssigned> second = all(scheduler.tick(T0.plusSeconds(4)), AttemptAssigned.class);
        assertThat(second).hasSize(3).allSatisfy(a -> assertThat(a.getAttempt()).isEqualTo(2));
    }

    @Test
    void aMemberThatDoesNotStartWithinTheStartTimeoutEndsTheGangsAttempt() {
        apply(worker("w1", 1), 0);
        apply(worker("w2", 1), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 2, GangPlacement.SPREAD, null), 1), AttemptAssigned.class);
        apply(started(a.get(0)), 2); // member 1's process never comes up

        // The gang was assigned at its submission's time, T0.
        assertThat(scheduler.nextDue()).as("the start bound of member 1").isEqualTo(T0.plusSeconds(300));
        assertThat(all(scheduler.tick(T0.plusSeconds(299)), AttemptRevoked.class)).isEmpty();
        List<Decision> out = scheduler.tick(T0.plusSeconds(300));

        List<AttemptRevoked> revoked = all(out, AttemptRevoked.class);
        assertThat(revoked).extracting(AttemptRevoked::getTaskId).containsExactly("g-1", "g-0");
        assertThat(revoked.get(0).getReason()).isEqualTo("attempt 1 of gang member g-1 did not start within 5m of its "
                + "assignment (the gang start timeout)");
        assertThat(revoked.get(1).getReason()).isEqualTo("gang g: member g-1 was revoked");
        assertThat(state("g-0")).isEqualTo(TaskState.WAITING);
        assertThat(state("g-1")).isEqualTo(TaskState.WAITING);
    }

    @Test
    void aStartedMemberWithoutATimeoutHasNoLeaseLeft() {
        apply(worker("w1", 2), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 2, GangPlacement.ANY, null), 1), AttemptAssigned.class);
        a.forEach(x -> apply(started(x), 2));
        assertThat(scheduler.nextDue()).isNull();
        assertThat(all(scheduler.tick(T0.plusSeconds(3_000)), AttemptRevoked.class)).isEmpty();
    }

    @Test
    void aGangWithoutAttemptsLeftFailsWhole() {
        apply(worker("w1", 2), 0);
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setRetry(In.retries(1)));
        List<AttemptAssigned> a = all(apply(g, 1), AttemptAssigned.class);

        List<Decision> out = apply(failed(a.get(0), "boom", true), 2);

        assertThat(all(out, TaskFinished.class)).extracting(TaskFinished::getState)
                .containsExactly(TaskState.FAILED, TaskState.FAILED);
        assertThat(state("g-0")).isEqualTo(TaskState.FAILED);
        assertThat(state("g-1")).isEqualTo(TaskState.FAILED);
        assertThat(scheduler.snapshot().busy()).isZero();
    }

    @Test
    void aMemberSucceededBeforeAnotherFailedSoTheGangFailsInsteadOfRunningAgain() {
        apply(worker("w1", 2), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 2, GangPlacement.ANY, null), 1), AttemptAssigned.class);
        apply(succeeded(a.get(0)), 2);

        List<Decision> out = apply(failed(a.get(1), "boom", true), 3);

        assertThat(only(out, TaskFinished.class).getState()).isEqualTo(TaskState.FAILED);
        assertThat(state("g-0")).isEqualTo(TaskState.SUCCEEDED);
        assertThat(state("g-1")).isEqualTo(TaskState.FAILED);
    }

    @Test
    void aWorkerThatLeavesWithAMemberRevokesTheOthersAndTheGangWaitsWhole() {
        apply(worker("w1", 1), 0);
        apply(worker("w2", 1), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 2, GangPlacement.SPREAD, null), 1), AttemptAssigned.class);
        String gone = a.get(0).getWorkerId();
        String other = a.get(1).getWorkerId();

        apply(In.left(gone, "scale down"), 2);
        List<Decision> out = scheduler.tick(T0.plusSeconds(10)); // its leave grace is over: what it held is lost

        AttemptRevoked revoked = only(out, AttemptRevoked.class);
        assertThat(revoked.getWorkerId()).isEqualTo(other);
        assertThat(state("g-0")).isEqualTo(TaskState.WAITING);
        assertThat(state("g-1")).isEqualTo(TaskState.WAITING);
        assertThat(all(apply(worker("w3", 1), 3), AttemptAssigned.class)).as("whole again, on two workers").isEmpty();
    }

    @Test
    void aWorkerEvictedWithTwoMembersEndsTheGangsAttemptOnceAndRevokesTheThird() {
        apply(worker("big", 2), 0);
        apply(worker("small", 1), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 3, GangPlacement.PACK, null), 1), AttemptAssigned.class);
        assertThat(workersOf(a.stream().map(x -> Decision.journal(x, null)).toList()))
                .containsExactly("big", "big", "small");

        List<Decision> out = scheduler.evict("big", T0.plusSeconds(5), "evicted: no heartbeat");

        assertThat(only(out, AttemptRevoked.class).getWorkerId()).isEqualTo("small");
        assertThat(all(out, TaskFinished.class)).extracting(TaskFinished::getState).containsOnly(TaskState.WAITING)
                .hasSize(3);
        for (int rank = 0; rank < 3; rank++) {
            assertThat(state("g-" + rank)).isEqualTo(TaskState.WAITING);
        }
        assertThat(store.pool().getWaitingGangs()).containsExactly("g");
        assertThat(scheduler.snapshot().busy()).isZero();
    }

    @Test
    void cancellingAMemberCancelsTheGangAndTellsTheWorkers() {
        apply(worker("w1", 2), 0);
        List<AttemptAssigned> a = all(apply(gang("g", 2, GangPlacement.ANY, null), 1), AttemptAssigned.class);

        List<Decision> out = apply(cancel("g-1"), 2);

        assertThat(all(out, AttemptRevoked.class)).hasSize(2);
        assertThat(all(out, TaskCancelled.class)).extracting(TaskCancelled::getTaskId).containsExactly("g-0", "g-1");
        assertThat(scheduler.snapshot().busy()).isZero();
        assertThat(a).hasSize(2);
    }

    @Test
    void cancellingAWaitingGangForgetsIt() {
        apply(gang("g", 2, GangPlacement.ANY, null), 0);
        apply(cancel("g-0"), 1);
        assertThat(all(apply(worker("w1", 2), 2), AttemptAssigned.class)).isEmpty();
        assertThat(state("g-1")).isEqualTo(TaskState.CANCELLED);
        assertThat(store.pool().getWaitingGangs()).isEmpty();
    }

    @Test
    void aSecondSubmissionIsADuplicateAndTakenIdsOrBrokenRulesAreRefusedKeepingNothing() {
        apply(gang("g", 2, GangPlacement.ANY, null), 0);
        assertThat(only(apply(gang("g", 2, GangPlacement.ANY, null), 1), DuplicateSubmission.class).getTaskId())
                .isEqualTo("g-0");

        apply(task("h-1"), 1);
        InputRejected taken = only(apply(gang("h", 2, GangPlacement.ANY, null), 2), InputRejected.class);
        assertThat(taken.getField()).isEqualTo("members[1].taskId");
        assertThat(store.task("h-0")).isNull();

        GangSubmitted renamed = gang("k", 2, GangPlacement.ANY, null);
        renamed.getMembers().get(1).setTaskId("other");
        InputRejected broken = only(apply(renamed, 3), InputRejected.class);
        assertThat(broken.getField()).isEqualTo("members[1].taskId");
        assertThat(broken.getReason()).contains("member 1 of gang k is named k-1");
        assertThat(store.task("k-0")).isNull();
    }

    @Test
    void aTenantsMaxMustHoldTheWholeGang() {
        apply(share("team", null, quota(0, 2)), 0);
        apply(worker("w1", 4), 0);
        GangSubmitted g = gang("g", 3, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setTenant("team"));
        apply(g, 1);
        assertThat(store.task("g-0").getWaitingReason()).isEqualTo("gang g needs 3 slots; tenant team may hold at most "
                + "2 slots of the pool and holds 0: the gang's members do not all fit under that max");
        assertThat(scheduler.snapshot().busy()).isZero();
    }

    @Test
    void aRestartedSchedulerTakesTheWaitingGangBackFromItsStore() {
        apply(gang("g", 2, GangPlacement.SPREAD, null), 0);
        PoolScheduler restarted = new PoolScheduler(POOL, store, RULES);
        restarted.apply(worker("w1", 1), T0.plusSeconds(1));
        List<Decision> out = restarted.apply(worker("w2", 1), T0.plusSeconds(2));
        assertThat(workersOf(out)).containsExactlyInAnyOrder("w1", "w2");
        assertThat(store.pool().getWaitingGangs()).isEmpty();
    }

    @Test
    void aGangIsTakenBackWholeForATenantBelowItsGuaranteeAndWaitsAgain() {
        apply(share("a", null, quota(2, null)), 0);
        apply(In.preemption(true, 0L), 0);
        apply(worker("w1", 2), 0);
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setTenant("b"));
        apply(g, 1);
        apply(In.tenantTask("a-1", "a"), 2);

        List<Decision> ticked = scheduler.tick(T0.plusSeconds(60));

        assertThat(all(ticked, AttemptRevoked.class)).extracting(AttemptRevoked::getTaskId)
                .containsExactly("g-0", "g-1");
        assertThat(all(ticked, AttemptRevoked.class).get(0).getReason()).contains("its gang is taken back whole");
        assertThat(state("a-1")).isEqualTo(TaskState.ASSIGNED);
        assertThat(state("g-0")).isEqualTo(TaskState.WAITING);
        assertThat(state("g-1")).isEqualTo(TaskState.WAITING);
        assertThat(store.task("g-0").getAttempts().get(0).getOutcome()).isEqualTo(io.cronoq.events.AttemptOutcome.PREEMPTED);
        assertThat(scheduler.snapshot().busy()).as("a-1, and the slot the gang cannot use alone idles").isOne();
    }

    @Test
    void aBorrowedSingleAttemptIsPreemptedBeforeAnyGang() {
        apply(share("a", null, quota(1, null)), 0);
        apply(In.preemption(true, 0L), 0);
        apply(worker("w1", 3), 0);
        GangSubmitted g = gang("g", 2, GangPlacement.ANY, null);
        g.getMembers().forEach(m -> m.setTenant("b"));
        apply(g, 1);
        apply(In.tenantTask("b-single", "b"), 1);
        apply(In.tenantTask("a-1", "a"), 2);

        List<Decision> ticked = scheduler.tick(T0.plusSeconds(60));

        assertThat(all(ticked, AttemptRevoked.class)).extracting(AttemptRevoked::getTaskId).containsExactly("b-single");
        assertThat(state("g-0")).isEqualTo(TaskState.ASSIGNED);
        assertThat(state("a-1")).isEqualTo(TaskState.ASSIGNED);
    }
}
