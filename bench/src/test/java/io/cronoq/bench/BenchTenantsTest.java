package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TenantQuota;
import io.cronoq.schemas.KeyPartitions;
import io.cronoq.schemas.rules.SharingRules;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The tenants of a bench run and the sharing policy it sets: weights 1 to 4, a tenth guaranteed (together at most
 * half a pool's slots, at least one each), a tenth bounded, every change one the scheduler accepts and keyed like
 * the pool's tasks; with one tenant, today's workload.
 */
class BenchTenantsTest {

    private static final Instant AT = Instant.parse("2026-12-05T10:00:00Z");

    @Test
    void weightsGoFromOneToFourByTheTenantsNumber() {
        List<SharingPolicySet> policy = new BenchTenants(8).policy("p", 1_024, AT);
        assertThat(policy).extracting(SharingPolicySet::getWeight)
                .containsExactly(1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0);
        assertThat(policy).extracting(SharingPolicySet::getTenant)
                .containsExactly("bench-tenant-0", "bench-tenant-1", "bench-tenant-2", "bench-tenant-3",
                        "bench-tenant-4", "bench-tenant-5", "bench-tenant-6", "bench-tenant-7");
    }

    @Test
    void aTenthIsGuaranteedAtMostHalfThePoolTogetherAndATenthIsBounded() {
        List<SharingPolicySet> policy = new BenchTenants(100).policy("p", 1_024, AT);
        assertThat(policy).hasSize(100);
        List<TenantQuota> guarantees = quotas(policy, true);
        assertThat(guarantees).hasSize(10).allSatisfy(q -> {
            assertThat(q.getLabels()).as("over the whole pool").isEmpty();
            assertThat(q.getMax()).isNull();
        });
        assertThat(guarantees.stream().mapToInt(TenantQuota::getGuaranteed).sum()).isLessThanOrEqualTo(512)
                .isEqualTo(10 * 51);
        assertThat(guaranteedTenants(policy)).allSatisfy(t -> assertThat(number(t) % 10).isEqualTo(1));
        List<SharingPolicySet> bounded = policy.stream().filter(p -> maxOf(p) != null).toList();
        assertThat(bounded).hasSize(10).allSatisfy(p -> assertThat(number(p.getTenant()) % 10).isEqualTo(2));
        // bench-tenant-2 weighs 3 of the 250 all 100 weigh together: a fair share of 12.3 slots of 1,024.
        assertThat(maxOf(policy.get(2))).isEqualTo(24);
        // bench-tenant-12 weighs 1: 4.1 slots.
        assertThat(maxOf(policy.get(12))).isEqualTo(8);
    }

    @Test
    void guaranteesStayWithinHalfThePoolWhateverTheCountWithAtLeastOneSlotEach() {
        for (int count : new int[] {2, 9, 10, 11, 99, 1_000, 5_000, 10_000}) {
            for (long slots : new long[] {1, 2, 7, 64, 1_024}) {
                List<SharingPolicySet> policy = new BenchTenants(count).policy("p", slots, AT);
                List<TenantQuota> guarantees = quotas(policy, true);
                String what = count + " tenants, " + slots + " slots";
                assertThat(guarantees).as(what).allSatisfy(q -> assertThat(q.getGuaranteed()).isPositive());
                assertThat(guarantees.stream().mapToLong(TenantQuota::getGuaranteed).sum()).as(what)
                        .isLessThanOrEqualTo(slots / 2);
                assertThat(guarantees).as(what + ": a tenth, as many as half the slots allow")
                        .hasSize((int) Math.min((count + 8) / 10, slots / 2));
                assertThat(quotas(policy, false)).as(what).hasSize((count + 7) / 10)
                        .allSatisfy(q -> assertThat(q.getMax()).isPositive());
            }
        }
    }

    @Test
    void everyChangeIsOneTheSchedulerAccepts() {
        for (SharingPolicySet change : new BenchTenants(1_000).policy("bench-pool-0-3", 1_024, AT)) {
            assertThat(SharingRules.check(change)).as(change.toString()).isEmpty();
        }
    }

    @Test
    void oneTenantIsTodaysWorkloadNoTenantAndNoPolicy() {
        Workload workload = new Workload("bench-eeeeee", 2, 2, 64, 32, 6, new BenchTenants(1));
        assertThat(workload.sharingPolicies(AT)).isEmpty();
        assertThat(workload.task(7, 0, AT).getTenant()).isNull();
        assertThat(workload.task(7, 0, AT))
                .isEqualTo(new Workload("bench-eeeeee", 2, 2, 64, 32, 6).task(7, 0, AT));
    }

    @Test
    void taskKRunsForTenantKModNAndEveryPoolHasItsPolicyKeyedLikeItsTasks() {
        int partitions = 6;
        Workload workload = new Workload("bench-ffffff", 2, 2, 65, 32, partitions, new BenchTenants(10));
        List<TaskSubmitted> tasks = java.util.stream.LongStream.range(0, 40)
                .mapToObj(k -> workload.task(k, 0, AT)).toList();
        for (int k = 0; k < 40; k++) {
            assertThat(tasks.get(k).getTenant()).isEqualTo("bench-tenant-" + k % 10);
        }
        List<SharingPolicySet> policies = workload.sharingPolicies(AT);
        Map<String, Long> changesByPool = policies.stream()
                .collect(Collectors.groupingBy(SharingPolicySet::getPool, Collectors.counting()));
        assertThat(changesByPool).containsOnly(Map.entry(workload.pool(0), 10L), Map.entry(workload.pool(1), 10L));
        // The bench keys a change by its pool as it keys a task, so both land on the pool's partition, in order.
        assertThat(policies).extracting(SharingPolicySet::getPool).containsOnly(workload.pool(0), workload.pool(1));
        assertThat(tasks).extracting(TaskSubmitted::getPool).containsOnly(workload.pool(0), workload.pool(1));
        assertThat(KeyPartitions.of(workload.pool(1), partitions)).isEqualTo(1);
        // 65 workers of 32 slots: 33 in the first pool (1,056 slots), 32 in the second (1,024).
        assertThat(guaranteeOf(policies, workload.pool(0))).isEqualTo(528);
        assertThat(guaranteeOf(policies, workload.pool(1))).isEqualTo(512);
    }

    private static List<TenantQuota> quotas(List<SharingPolicySet> policy, boolean guaranteed) {
        return policy.stream().filter(p -> p.getQuotas() != null).flatMap(p -> p.getQuotas().stream())
                .filter(q -> guaranteed ? q.getGuaranteed() > 0 : q.getMax() != null).toList();
    }

    private static List<String> guaranteedTenants(List<SharingPolicySet> policy) {
        return policy.stream().filter(p -> p.getQuotas() != null && p.getQuotas().get(0).getGuaranteed() > 0)
                .map(SharingPolicySet::getTenant).toList();
    }

    private static Integer maxOf(SharingPolicySet change) {
        return change.getQuotas() == null ? null : change.getQuotas().get(0).getMax();
    }

    private static int guaranteeOf(List<SharingPolicySet> policies, String pool) {
        return policies.stream().filter(p -> p.getPool().equals(pool) && p.getQuotas() != null)
                .flatMap(p -> p.getQuotas().stream()).mapToInt(TenantQuota::getGuaranteed).sum();
    }

    private static int number(String tenant) {
        return Integer.parseInt(tenant.substring(BenchTenants.STEM.length()));
    }
}
