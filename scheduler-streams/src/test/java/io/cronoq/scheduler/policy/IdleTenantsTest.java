package io.cronoq.scheduler.policy;

import static io.cronoq.scheduler.policy.In.T0;
import static io.cronoq.scheduler.policy.In.share;
import static io.cronoq.scheduler.policy.In.started;
import static io.cronoq.scheduler.policy.In.succeeded;
import static io.cronoq.scheduler.policy.In.tenantTask;
import static io.cronoq.scheduler.policy.In.worker;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.scheduler.policy.store.InMemoryPoolStore;
import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tenants that come and go: one that holds nothing, waits for nothing and has no policy is
 * forgotten once the input that left it so is over, and comes back as new; one with a policy is
 * kept; many short-lived tenants leave nothing behind.
 */
class IdleTenantsTest {

    private final PoolScheduler scheduler = new PoolScheduler(In.POOL, InMemoryPoolStore.copying());
    private final ArrayDeque<AttemptAssigned> running = new ArrayDeque<>();

    private void apply(org.apache.avro.specific.SpecificRecord in) {
        running.addAll(Out.all(scheduler.apply(in, T0), AttemptAssigned.class));
    }

    /** Starts and succeeds every running attempt, and those their freed slots go to. */
    private void runAll() {
        while (!running.isEmpty()) {
            AttemptAssigned a = running.poll();
            apply(started(a));
            apply(succeeded(a));
        }
    }

    @Test
    void aTenantWithoutPolicyIsForgottenOnceItHoldsAndWaitsForNothing() {
        apply(worker("w1", 1));
        apply(tenantTask("a-1", "a"));
        apply(tenantTask("a-2", "a"));
        assertThat(scheduler.knownTenants()).as("default and a").isEqualTo(2);

        runAll();

        assertThat(scheduler.knownTenants()).as("a is idle: only default is left").isEqualTo(1);
        apply(tenantTask("a-3", "a"));
        assertThat(running).as("a comes back as new and runs").extracting(AttemptAssigned::getTaskId).containsExactly("a-3");
        assertThat(scheduler.sharing().tenants()).extracting(t -> t.tenant(), t -> t.slotsInUse())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 1));
    }

    @Test
    void aTenantWithAPolicyIsKeptAndForgottenOnlyOnceItsPolicyIsBackToTheDefault() {
        apply(share("b", 2.0));
        apply(worker("w1", 1));
        apply(tenantTask("b-1", "b"));
        runAll();
        assertThat(scheduler.knownTenants()).as("b has weight 2").isEqualTo(2);
        assertThat(scheduler.sharing().tenants()).extracting(t -> t.tenant()).containsExactly("b");

        apply(share("b", 1.0));

        assertThat(scheduler.knownTenants()).as("b's weight is back to 1: forgotten").isEqualTo(1);
        assertThat(scheduler.sharing().tenants()).isEmpty();
    }

    @Test
    void manyShortLivedTenantsAcrossClassesLeaveOnlyTheDefaultTenant() {
        apply(worker("w1", 4, "rack=r1"));
        apply(worker("w2", 4, "rack=r2"));
        for (int t = 0; t < 500; t++) {
            for (String rack : List.of("rack=r1", "rack=r2")) {
                apply(tenantTask("t" + t + "-" + rack.replace('=', '-'), "team-" + t, rack));
            }
        }
        assertThat(scheduler.knownTenants()).isEqualTo(501);

        runAll();

        assertThat(scheduler.knownTenants()).isEqualTo(1);
        assertThat(scheduler.snapshot().waiting()).isZero();
        // A returning name gets a fresh tenant, in a line of its own, whatever lines the old one left.
        apply(tenantTask("again", "team-7", "rack=r1"));
        assertThat(running).extracting(AttemptAssigned::getTaskId).containsExactly("again");
    }
}
