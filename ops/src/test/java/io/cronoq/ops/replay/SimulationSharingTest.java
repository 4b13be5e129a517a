package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TenantQuota;
import io.cronoq.scheduler.policy.TimeRules;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What-if sharing policies ({@code simulate --weight/--quota/--preemption}) over journals recorded
 * without Kafka, and a recorded preemption simulated as recorded whatever its producer's clock.
 */
class SimulationSharingTest {

    private static final Map<String, String> NONE = Map.of();

    @Test
    void aHeavierWeightGivesItsTenantMoreOfTheFreedSlots() {
        List<JournalEntry> recorded = twoTenants(null);

        WhatIf.Report report = WhatIf.run(recorded, FleetChange.none(),
                SharingChange.of(List.of(SharingChange.Weight.parse("a=3")), List.of(), null), TimeRules.DEFAULT);

        WhatIf.TenantResult a = tenant(report, "a");
        WhatIf.TenantResult b = tenant(report, "b");
        assertThat(a.recorded().max()).as("recorded: equal weights, equal waits").isEqualTo(b.recorded().max());
        assertThat(a.simulated().max()).as("a takes 3 of every 4 freed slots").isLessThan(a.recorded().max());
        assertThat(b.simulated().p50()).as("b waits longer for the rest").isGreaterThan(b.recorded().p50());
        assertThat(report.reproduced()).isFalse();
        StringWriter text = new StringWriter();
        WhatIfOutput.table(report, new PrintWriter(text, true));
        assertThat(text.toString()).as("one worker: every attempt on its recorded worker, but not in turn")
                .contains("change: tenant a weight 3 (in every pool)")
                .contains("p: 16 of 16 simulated attempts placed as recorded (recorded 16), in another order")
                .contains("Wait time per tenant");

        List<String> simulated = tenantsOfPlacements(Simulation.run("p", recorded, FleetChange.none(),
                SharingChange.of(List.of(SharingChange.Weight.parse("a=3")), List.of(), null), TimeRules.DEFAULT)
                .journal());
        // The first four are placed as they come; then each time the four slots free, they are shared out again.
        for (int round = 1; round <= 2; round++) {
            List<String> freed = simulated.subList(4 * round, 4 * round + 4);
            assertThat(freed).as("simulated round %d: a gets three slots to b's one, %s", round, freed)
                    .filteredOn("a"::equals).hasSize(3);
            List<String> before = tenantsOfPlacements(recorded).subList(4 * round, 4 * round + 4);
            assertThat(before).as("recorded round %d: two each, %s", round, before).filteredOn("a"::equals).hasSize(2);
        }
    }

    @Test
    void theWhatIfHoldsAgainRightAfterEveryRecordedChangeOfItsTenant() {
        // Recorded: an admin gave b weight 3 before the tasks came. The what-if gives it weight 1, all along.
        List<JournalEntry> recorded = twoTenants(policy(500, "b", 3.0));

        SharingChange evenly = SharingChange.of(List.of(SharingChange.Weight.parse("b=1")), List.of(), null);
        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none(), evenly, TimeRules.DEFAULT)
                .journal();

        assertThat(simulated).filteredOn(e -> e.getEvent() instanceof SharingPolicySet)
                .extracting(e -> ((SharingPolicySet) e.getEvent()).getSetBy() + " " + ((SharingPolicySet) e.getEvent())
                        .getWeight() + " at " + e.getAt().toEpochMilli() % 10_000)
                .containsExactly("cronoq simulate 1.0 at 0", "admin 3.0 at 500", "cronoq simulate 1.0 at 500");
        List<String> recordedOrder = tenantsOfPlacements(recorded).subList(4, 12);
        List<String> simulatedOrder = tenantsOfPlacements(simulated).subList(4, 12);
        assertThat(recordedOrder).as("recorded: b favoured, %s", recordedOrder).filteredOn("a"::equals).hasSize(2);
        assertThat(simulatedOrder).as("simulated: equal weights, %s", simulatedOrder).filteredOn("a"::equals)
                .hasSize(4);
    }

    @Test
    void aQuotaMaxBoundsItsTenantAndTheOutputShowsTheTenantsAndTheChange() {
        List<JournalEntry> recorded = twoTenants(null);
        SharingChange capped = SharingChange.of(List.of(),
                List.of(SharingChange.Quota.parse("a:pool:max=1")), Boolean.FALSE);

        WhatIf.Report report = WhatIf.run(recorded, FleetChange.none(), capped, TimeRules.DEFAULT);
        StringWriter text = new StringWriter();
        WhatIfOutput.table(report, new PrintWriter(text, true));
        StringWriter json = new StringWriter();
        WhatIfOutput.json(report, new PrintWriter(json, true));

        assertThat(tenant(report, "a").simulated().max()).as("a runs one task at a time")
                .isGreaterThan(tenant(report, "a").recorded().max());
        assertThat(text.toString()).contains("change: tenant a quotas pool 0/1; preemption off (in every pool)")
                .contains("Wait time per tenant").contains("WAITING AT END");
        assertThat(json.toString()).contains("\"quotas\" : {").contains("\"preemption\" : false")
                .contains("\"tenant\" : \"b\"");
    }

    @Test
    void aTenantTheJournalDoesNotKnowIsRefusedNamingTheFlag() {
        List<JournalEntry> recorded = twoTenants(null);

        assertThatThrownBy(() -> WhatIf.run(recorded, FleetChange.none(),
                SharingChange.of(List.of(SharingChange.Weight.parse("research=2")), List.of(), null), TimeRules.DEFAULT))
                .hasMessageContaining("--weight: tenant 'research' is not in the journal; its tenants: [a, b]");
    }

    @Test
    void withoutASharingChangeATwoTenantJournalIsReproducedAndItsTenantsShown() {
        List<JournalEntry> recorded = twoTenants(policy(500, "b", 3.0));

        WhatIf.Report report = WhatIf.run(recorded, FleetChange.none());
        StringWriter text = new StringWriter();
        WhatIfOutput.table(report, new PrintWriter(text, true));

        assertThat(report.reproduced()).isTrue();
        assertThat(text.toString()).contains("change: none").contains("Wait time per tenant");
    }

    @Test
    void aJournalOfManyTenantsWithWeightsGuaranteesAndMaximaIsReproduced() {
        JournalRecorder r = JournalRecorder.scripted().register(0, "p", "w1", Map.of("disk", "ssd"), 4)
                .register(0, "p", "w2", NONE, 4).register(0, "p", "w3", NONE, 4);
        for (int t = 0; t < 200; t++) {
            List<TenantQuota> quotas = t % 10 == 1 ? List.of(new TenantQuota(Map.of(), 1, null))
                    : t % 10 == 2 ? List.of(new TenantQuota(Map.of("disk", "ssd"), 0, 1)) : null;
            r.share(0, SharingPolicySet.newBuilder().setPool("p").setTenant("team-" + t).setWeight(1.0 + t % 4)
                    .setQuotas(quotas).setSetBy("admin").setSetAt(JournalRecorder.t(0)).build());
        }
        for (int i = 0; i < 600; i++) {
            String id = "task-" + i;
            r.script(id, JournalRecorder.Run.succeeds(0, 500 + (i % 7) * 300L));
            r.submit(1_000 + i * 20L, JournalRecorder.task(1_000 + i * 20L, "p", id).setTenant("team-" + (i % 200))
                    .setLabels(i % 3 == 0 ? Map.of("disk", "ssd") : NONE).build());
        }
        List<JournalEntry> recorded = r.record();
        assertThat(recorded).as("every task ran").filteredOn(e -> e.getEvent() instanceof AttemptAssigned)
                .hasSizeGreaterThanOrEqualTo(600);

        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none()).journal();

        assertThat(simulated).as("every entry: times, event and cause").containsExactlyElementsOf(recorded);
    }

    @ParameterizedTest(name = "prod's producer {0} ms off the scheduler's clock")
    @ValueSource(longs = {-3_600_000, 3_600_000})
    void aPreemptionRecordedWithAProducersClockOffIsSimulatedAsRecorded(long skewMs) {
        // Pool p: w1 with 2 slots; prod is guaranteed 1. research's two tasks take both slots at 1 s; prod's task,
        // heard at 5 s from a producer whose clock is an hour off, takes one back when the 30 s grace ends.
        JournalRecorder r = JournalRecorder.scripted().register(0, "p", "w1", NONE, 2)
                .share(0, SharingPolicySet.newBuilder().setPool("p").setTenant("prod")
                        .setQuotas(List.of(new TenantQuota(Map.of(), 1, null))).setSetBy("admin")
                        .setSetAt(JournalRecorder.t(0)).build());
        for (String id : List.of("r0", "r1")) {
            r.script(id, JournalRecorder.Run.succeeds(0, 120_000));
            r.submit(1_000, JournalRecorder.task(1_000, "p", id).setTenant("research").build());
        }
        r.script("p0", JournalRecorder.Run.succeeds(0, 10_000));
        List<JournalEntry> recorded = r.submitFrom(skewMs, 5_000,
                JournalRecorder.task(5_000, "p", "p0").setTenant("prod").build()).record();
        assertThat(recorded).as("prod's submission: stamped by its producer, heard by the scheduler")
                .anySatisfy(e -> {
                    assertThat(e.getEvent()).isInstanceOf(TaskSubmitted.class);
                    assertThat(e.getAt()).isEqualTo(JournalRecorder.t(5_000 + skewMs));
                    assertThat(e.getHeardAt()).isEqualTo(JournalRecorder.t(5_000));
                });
        assertThat(recorded).as("the preemption, at the end of the grace on the scheduler's clock")
                .filteredOn(e -> e.getEvent() instanceof AttemptRevoked).singleElement()
                .satisfies(e -> assertThat(e.getAt()).isEqualTo(JournalRecorder.t(35_000)))
                .satisfies(e -> assertThat(((AttemptRevoked) e.getEvent()).getTaskId()).isEqualTo("r1"));

        List<JournalEntry> simulated = Simulation.run("p", recorded, FleetChange.none()).journal();

        assertThat(simulated).as("every entry: times, event and cause").containsExactlyElementsOf(recorded);
        assertThat(WhatIf.run(recorded, FleetChange.none()).reproduced()).isTrue();
    }

    /**
     * Pool p: one worker with 4 slots; at 1 s tenants a and b each submit 8 tasks of 10 s, in turn
     * (a0, b0, a1, b1, ...); {@code policy}, if any, is set at its time.
     */
    private static List<JournalEntry> twoTenants(SharingPolicySet policy) {
        JournalRecorder r = JournalRecorder.scripted().register(0, "p", "w1", NONE, 4);
        if (policy != null) {
            r.share(policy.getSetAt().toEpochMilli() - JournalRecorder.T0.toEpochMilli(), policy);
        }
        for (int i = 0; i < 8; i++) {
            for (String tenant : List.of("a", "b")) {
                r.script(tenant + i, JournalRecorder.Run.succeeds(0, 10_000));
                r.submit(1_000, JournalRecorder.task(1_000, "p", tenant + i).setTenant(tenant).build());
            }
        }
        return r.record();
    }

    private static SharingPolicySet policy(long ms, String tenant, double weight) {
        return SharingPolicySet.newBuilder().setPool("p").setTenant(tenant).setWeight(weight).setSetBy("admin")
                .setSetAt(JournalRecorder.t(ms)).build();
    }

    /** The tenant (the task id's letter) of every placement, in journal order. */
    private static List<String> tenantsOfPlacements(List<JournalEntry> journal) {
        List<String> tenants = new ArrayList<>();
        for (JournalEntry e : journal) {
            if (e.getEvent() instanceof AttemptAssigned a) {
                tenants.add(a.getTaskId().substring(0, 1));
            }
        }
        return tenants;
    }

    private static WhatIf.TenantResult tenant(WhatIf.Report report, String tenant) {
        return report.tenants().stream().filter(t -> t.tenant().equals(tenant)).findFirst().orElseThrow();
    }
}
