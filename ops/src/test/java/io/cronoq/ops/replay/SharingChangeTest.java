package io.cronoq.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TenantQuota;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reading {@code --weight}, {@code --quota} and {@code --preemption}, and the policy changes they make. */
class SharingChangeTest {

    private static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void weightAndQuotaReadTheTenantAndItsValues() {
        assertThat(SharingChange.Weight.parse("research=2.5")).isEqualTo(new SharingChange.Weight("research", 2.5));
        SharingChange.Quota quota = SharingChange.Quota.parse("research:gpu=a100,zone=eu:guaranteed=4:max=16");
        assertThat(quota.tenant()).isEqualTo("research");
        assertThat(quota.quota()).isEqualTo(new TenantQuota(Map.of("gpu", "a100", "zone", "eu"), 4, 16));
        assertThat(SharingChange.Quota.parse("web:pool:max=8").quota()).isEqualTo(new TenantQuota(Map.of(), 0, 8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "research             | is not TENANT=W",
        "research=lots        | 'lots' is not a number",
        "research=0           | above 0",
        "research=1001        | at most 1000",
        "=3                   | tenant is empty",
        "ml team=3            | tenant 'ml team' is not allowed"})
    void aMalformedWeightSaysWhatIsWrong(String value, String message) {
        assertThatThrownBy(() -> SharingChange.Weight.parse(value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "research                               | is not TENANT:SCOPE",
        "research:gpu=a100                      | is not SCOPE:guaranteed=N[:max=M]",
        "research:gpu=a100:guaranteed=x         | guaranteed 'x' is not a whole number",
        "research:gpu=a100:guaranteed=3:max=2   | guaranteed is 3, above its max 2",
        "research:gpu=a100:max=-1               | max is -1",
        "research::guaranteed=1                 | has no scope",
        "research:gpu=a100:guaranteed=1:guaranteed=2 | 'guaranteed=2' is not guaranteed=N or max=M",
        "research:gpu=a100:weight=2             | 'weight=2' is not guaranteed=N or max=M",
        "research:gpu=a100:pool                 | 'pool' is not guaranteed=N or max=M",
        "ml/team:pool:max=2                     | tenant 'ml/team' is not allowed"})
    void aMalformedQuotaSaysWhatIsWrong(String value, String message) {
        assertThatThrownBy(() -> SharingChange.Quota.parse(value)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void theChangeIsInForceFromTheStartAndAgainAfterARecordedChangeOfTheSameTenantOrPool() {
        SharingChange change = SharingChange.of(List.of(SharingChange.Weight.parse("research=3")),
                List.of(SharingChange.Quota.parse("research:gpu=a100:guaranteed=4"),
                        SharingChange.Quota.parse("web:pool:max=2")), Boolean.FALSE);

        List<SharingPolicySet> start = change.atStart("gpu", AT);
        assertThat(start).extracting(SharingPolicySet::getTenant).containsExactly(null, "research", "web");
        assertThat(start.get(0).getPreemption()).isFalse();
        assertThat(start.get(1).getWeight()).isEqualTo(3.0);
        assertThat(start.get(1).getQuotas()).containsExactly(new TenantQuota(Map.of("gpu", "a100"), 4, null));
        assertThat(start.get(2).getWeight()).as("web's weight stays as recorded").isNull();
        assertThat(start).allSatisfy(p -> assertThat(p.getSetBy()).isEqualTo("cronoq simulate"));

        SharingPolicySet recordedWeb = SharingPolicySet.newBuilder().setPool("gpu").setTenant("web").setWeight(2.0)
                .setSetAt(AT).build();
        SharingPolicySet recordedOther = SharingPolicySet.newBuilder(recordedWeb).setTenant("ops").build();
        SharingPolicySet recordedPool = SharingPolicySet.newBuilder(recordedWeb).setTenant(null).setWeight(null)
                .setPreemption(true).build();
        assertThat(change.after(recordedWeb, AT)).hasValueSatisfying(p -> {
            assertThat(p.getTenant()).isEqualTo("web");
            assertThat(p.getWeight()).as("the recorded weight stands").isNull();
            assertThat(p.getQuotas()).hasSize(1);
        });
        assertThat(change.after(recordedOther, AT)).isEmpty();
        assertThat(change.after(recordedPool, AT)).hasValueSatisfying(p -> assertThat(p.getPreemption()).isFalse());
        assertThat(change.describe()).isEqualTo("tenant research weight 3, quotas gpu=a100 4/-; tenant web quotas "
                + "pool 0/2; preemption off");
    }

    @Test
    void noChangeMakesNoPolicy() {
        assertThat(SharingChange.none().isNone()).isTrue();
        assertThat(SharingChange.none().atStart("gpu", AT)).isEmpty();
        assertThat(SharingChange.of(List.of(), List.of(), null).isNone()).isTrue();
    }
}
