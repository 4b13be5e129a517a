package io.cronoq.scheduler.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptRef;
import io.cronoq.scheduler.policy.match.LabelSet;
import io.cronoq.scheduler.policy.match.Requirement;
import io.cronoq.scheduler.policy.sharing.Tenant;
import io.cronoq.scheduler.policy.sharing.Tenants;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A requirement class's seats by share, against the plain answer: after any mix of tenants holding
 * and freeing slots, lines filling and emptying, and the pool's capacity changing (every share at
 * once), the first two tenants the class's seats give are the two smallest shares (ties by name)
 * among the tenants whose line has waiting tasks.
 */
class TenantSeatsTest {

    private static final int TENANTS = 40;

    @Test
    void theFirstTwoSeatsAreTheTwoSmallestSharesAmongTenantsWithWaitingTasks() {
        for (long run = 1; run <= 20; run++) {
            check(new Random(run));
        }
    }

    private static void check(Random random) {
        Tenants tenants = new Tenants("p");
        Need need = new Need(Requirement.parse(""), tenants);
        List<WaitClass> lines = new ArrayList<>();
        List<Integer> held = new ArrayList<>();
        tenants.watch(new Tenants.Watcher() {
            @Override
            public void shareFell(Tenant t) {
                need.seats.shareFell(t);
            }

            @Override
            public void standingChanged(Tenant t) {
                need.seats.standingChanged(t);
            }
        });
        tenants.capacity(1_000, 0);
        for (int i = 0; i < TENANTS; i++) {
            Tenant t = tenants.get("t" + i);
            WaitClass c = new WaitClass(need, t, "k" + i, null);
            need.addLine(c);
            lines.add(c);
            held.add(0);
        }
        TenantSeats.Seat[] pick = new TenantSeats.Seat[2];
        int pairs = 0;
        for (int step = 0; step < 2_000; step++) {
            int i = random.nextInt(TENANTS);
            WaitClass c = lines.get(i);
            switch (random.nextInt(4)) {
                case 0 -> { // a slot held, or freed
                    boolean free = held.get(i) > 0 && random.nextBoolean();
                    AttemptRef ref = new AttemptRef("x", 1, c.tenant.name(), 0, List.of());
                    if (free) {
                        tenants.free(ref, LabelSet.EMPTY);
                    } else {
                        tenants.hold(ref, LabelSet.EMPTY);
                    }
                    held.set(i, held.get(i) + (free ? -1 : 1));
                }
                case 1 -> { // the line fills or empties (its tenant starts or stops waiting)
                    boolean waits = c.count == 0;
                    tenants.waiting(c.tenant, waits);
                    c.count = waits ? 1 : 0;
                    need.counted(c);
                }
                case 2 -> tenants.capacity(random.nextInt(3) - 1, 0); // every share changes at once
                default -> { }
            }
            int found = need.seats.firstTwo(pick);
            List<Tenant> expected = lines.stream().filter(l -> l.count > 0).map(l -> l.tenant)
                    .sorted(Tenants::byShare).limit(2).toList();
            List<Tenant> actual = new ArrayList<>();
            for (int k = 0; k < found; k++) {
                actual.add(pick[k].tenant);
            }
            assertThat(actual).as("step %d", step).containsExactlyElementsOf(expected);
            pairs += expected.size() == 2 ? 1 : 0;
        }
        assertThat(pairs).as("steps with two tenants or more waiting").isGreaterThan(1_000);
    }
}
