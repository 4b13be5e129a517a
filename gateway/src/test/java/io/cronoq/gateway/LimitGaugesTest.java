package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.policy.LimitsSnapshot;
import io.cronoq.scheduler.policy.LimitsSnapshot.KeyUse;
import io.cronoq.scheduler.policy.LimitsSnapshot.RateUse;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The concurrency key and rate limit gauges, as a Prometheus scrape shows them after the pools' limits are read. */
class LimitGaugesTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final LimitGauges gauges = new LimitGauges(registry);

    /** customer-42 limited by an admin and full, customer-7 running one of its tasks' own 3, idle limited, one waiting. */
    private static final LimitsSnapshot API = new LimitsSnapshot("api", List.of(
            new KeyUse("customer-42", 2, 2, 2, 3),
            new KeyUse("customer-7", null, 1, 3, 0),
            new KeyUse("customer-9", null, 1, 1, 1),
            new KeyUse("idle", 5, 0, null, 0),
            new KeyUse("waiting-only", null, 0, null, 0)),
            List.of(new RateUse("openai", true, 10, 20, 3.5, 4), new RateUse("s3", false, 0, 0, 0, 2)));

    @Test
    void eachRateLimitHasItsBucketAndWhatItHoldsBackTaggedByPoolAndName() {
        gauges.update(List.of(API));
        String scrape = registry.scrape();
        String openai = "name=\"openai\",pool=\"api\"";
        String s3 = "name=\"s3\",pool=\"api\"";

        assertThat(value(scrape, "cronoq_rate_limit_available", openai)).isEqualTo(3.5);
        assertThat(value(scrape, "cronoq_rate_limit_per_second", openai)).isEqualTo(10.0);
        assertThat(value(scrape, "cronoq_rate_limit_burst", openai)).isEqualTo(20.0);
        assertThat(value(scrape, "cronoq_rate_limit_held_back", openai)).isEqualTo(4.0);
        assertThat(value(scrape, "cronoq_rate_limit_held_back", s3)).as("tasks wait for its definition").isEqualTo(2.0);
        assertThat(value(scrape, "cronoq_rate_limit_available", s3)).as("not defined, no bucket").isNull();
        assertThat(value(scrape, "cronoq_rate_limit_per_second", s3)).isNull();
        assertThat(value(scrape, "cronoq_rate_limit_burst", s3)).isNull();
    }

    @Test
    void eachPoolCountsItsKeysInUseAtTheirLimitAndTheTasksTheyHoldBack() {
        gauges.update(List.of(API));
        String scrape = registry.scrape();

        assertThat(value(scrape, "cronoq_concurrency_keys_in_use", "pool=\"api\"")).isEqualTo(3.0);
        assertThat(value(scrape, "cronoq_concurrency_keys_at_limit", "pool=\"api\"")).as("customer-42 and customer-9")
                .isEqualTo(2.0);
        assertThat(value(scrape, "cronoq_concurrency_held_back", "pool=\"api\"")).isEqualTo(4.0);
    }

    @Test
    void onlyTheKeysAnAdminLimitedHaveGaugesOfTheirOwn() {
        gauges.update(List.of(API));
        String scrape = registry.scrape();

        assertThat(value(scrape, "cronoq_concurrency_key_running", "key=\"customer-42\",pool=\"api\"")).isEqualTo(2.0);
        assertThat(value(scrape, "cronoq_concurrency_key_limit", "key=\"customer-42\",pool=\"api\"")).isEqualTo(2.0);
        assertThat(value(scrape, "cronoq_concurrency_key_held_back", "key=\"customer-42\",pool=\"api\"")).isEqualTo(3.0);
        assertThat(value(scrape, "cronoq_concurrency_key_running", "key=\"idle\",pool=\"api\"")).isEqualTo(0.0);
        assertThat(value(scrape, "cronoq_concurrency_key_limit", "key=\"idle\",pool=\"api\"")).isEqualTo(5.0);
        assertThat(scrape).as("keys no admin limited are counted per pool, not each")
                .doesNotContain("key=\"customer-7\"").doesNotContain("key=\"customer-9\"")
                .doesNotContain("key=\"waiting-only\"");
    }

    @Test
    void limitsThatAreGoneLeaveNoRows() {
        gauges.update(List.of(API));
        gauges.update(List.of(new LimitsSnapshot("api", List.of(new KeyUse("idle", 5, 0, null, 0)), List.of())));
        String scrape = registry.scrape();

        assertThat(scrape).doesNotContain("name=\"openai\"").doesNotContain("key=\"customer-42\"");
        assertThat(value(scrape, "cronoq_concurrency_key_limit", "key=\"idle\",pool=\"api\"")).isEqualTo(5.0);
        assertThat(value(scrape, "cronoq_concurrency_keys_in_use", "pool=\"api\"")).isEqualTo(0.0);

        gauges.update(List.of());
        assertThat(registry.scrape()).doesNotContain("pool=\"api\"");
    }

    /** The value of one Prometheus sample, or null when absent. */
    private static Double value(String scrape, String name, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{" + Pattern.quote(labels) + "\\} ([0-9.eE+-]+)$")
                .matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }
}
