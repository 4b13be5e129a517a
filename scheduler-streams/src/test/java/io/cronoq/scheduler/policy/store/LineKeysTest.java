package io.cronoq.scheduler.policy.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.RateLimitUse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LineKeys}: a line's key names its requirement, tenant and limits, and reads back to them. */
class LineKeysTest {

    @Test
    void aLineWithoutTenantOrLimitsIsItsRequirementKey() {
        assertThat(LineKeys.of("gpu=a100|cpu=1000", null, List.of(), List.of())).isEqualTo("gpu=a100|cpu=1000");
        assertThat(LineKeys.of("gpu=a100", "default", List.of(), List.of())).isEqualTo("gpu=a100");
        assertThat(LineKeys.limited("gpu=a100")).isFalse();
    }

    @Test
    void limitsReadBackSortedWhateverTheOrderTheTaskGaveThem() {
        String key = LineKeys.of("zone=eu", "research",
                List.of(new ConcurrencyKey("customer:42/eu", 2), new ConcurrencyKey("a-job", null)),
                List.of(new RateLimitUse("search", 3), new RateLimitUse("openai", 1)));
        String same = LineKeys.of("zone=eu", "research",
                List.of(new ConcurrencyKey("a-job", null), new ConcurrencyKey("customer:42/eu", 2)),
                List.of(new RateLimitUse("openai", 1), new RateLimitUse("search", 3)));

        assertThat(key).isEqualTo(same);
        assertThat(LineKeys.limited(key)).isTrue();
        assertThat(LineKeys.requirementKey(key)).isEqualTo("zone=eu");
        assertThat(LineKeys.tenantOf(key)).isEqualTo("research");
        assertThat(LineKeys.keysOf(key)).containsExactly(new ConcurrencyKey("a-job", null),
                new ConcurrencyKey("customer:42/eu", 2));
        assertThat(LineKeys.ratesOf(key)).containsExactly(new RateLimitUse("openai", 1), new RateLimitUse("search", 3));
    }

    @Test
    void theDefaultTenantsLimitedLineNamesNoTenant() {
        String key = LineKeys.of("", null, List.of(new ConcurrencyKey("nightly", 1)), List.of());
        assertThat(LineKeys.requirementKey(key)).isEmpty();
        assertThat(LineKeys.tenantOf(key)).isEqualTo("default");
        assertThat(LineKeys.keysOf(key)).containsExactly(new ConcurrencyKey("nightly", 1));
        assertThat(LineKeys.of("", null, List.of(new ConcurrencyKey("nightly", 2)), List.of())).as("another max, another line")
                .isNotEqualTo(key);
    }
}
