package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.LimitKind;
import io.cronoq.events.LimitSet;
import io.cronoq.events.RateLimitUse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@link LimitRules}: a task's concurrency keys and rate limits, and an admin's {@link LimitSet}, each refusal naming its field. */
class LimitRulesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static String field(Optional<Violation> v) {
        return v.map(Violation::field).orElse(null);
    }

    private static LimitSet set(LimitKind kind, String name, Integer max, Double perSecond, Integer burst) {
        return new LimitSet("pool", kind, name, max, perSecond, burst, "admin", T0);
    }

    @Test
    void validKeysAndRatesPass() {
        assertThat(LimitRules.concurrency(List.of(new ConcurrencyKey("customer:42/eu", 2), new ConcurrencyKey("nightly", null))))
                .isEmpty();
        assertThat(LimitRules.rateLimits(List.of(new RateLimitUse("openai", 1), new RateLimitUse("search-api", 5)))).isEmpty();
        assertThat(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "customer-42", 2, null, null))).isEmpty();
        assertThat(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "customer-42", null, null, null))).as("removal").isEmpty();
        assertThat(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, 0.5, null))).isEmpty();
        assertThat(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, null, null))).as("removal").isEmpty();
    }

    @Test
    void aTasksKeysAreRefusedNamingTheField() {
        assertThat(field(LimitRules.concurrency(List.of(new ConcurrencyKey("", 1))))).isEqualTo("concurrency[0].key");
        assertThat(LimitRules.concurrency(List.of(new ConcurrencyKey("a b", 1))).orElseThrow().message())
                .contains("none of them a space or a control character");
        assertThat(field(LimitRules.concurrency(List.of(new ConcurrencyKey("x\u001fy", 1))))).isEqualTo("concurrency[0].key");
        assertThat(field(LimitRules.concurrency(List.of(new ConcurrencyKey("k".repeat(201), 1))))).isEqualTo("concurrency[0].key");
        assertThat(field(LimitRules.concurrency(List.of(new ConcurrencyKey("ok", 1), new ConcurrencyKey("k", 0)))))
                .isEqualTo("concurrency[1].max");
        assertThat(field(LimitRules.concurrency(List.of(new ConcurrencyKey("k", 1), new ConcurrencyKey("k", 2)))))
                .isEqualTo("concurrency[1].key");
        List<ConcurrencyKey> many = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            many.add(new ConcurrencyKey("k" + i, 1));
        }
        assertThat(field(LimitRules.concurrency(many))).isEqualTo("concurrency");
    }

    @Test
    void aTasksRateLimitsAreRefusedNamingTheField() {
        assertThat(field(LimitRules.rateLimits(List.of(new RateLimitUse("open ai", 1))))).isEqualTo("rateLimits[0].name");
        assertThat(field(LimitRules.rateLimits(List.of(new RateLimitUse("openai", 0))))).isEqualTo("rateLimits[0].units");
        assertThat(field(LimitRules.rateLimits(List.of(new RateLimitUse("openai", 1), new RateLimitUse("openai", 1)))))
                .isEqualTo("rateLimits[1].name");
        assertThat(field(LimitRules.rateLimits(Collections.nCopies(17, new RateLimitUse("x", 1))))).isEqualTo("rateLimits");
    }

    @Test
    void anAdminsChangeIsRefusedNamingTheField() {
        assertThat(field(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "", 1, null, null)))).isEqualTo("name");
        assertThat(field(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "k", 0, null, null)))).isEqualTo("max");
        assertThat(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "k", 0, null, null)).orElseThrow().message())
                .as("an admin's null removes the limit").endsWith("(or null to remove it)");
        assertThat(LimitRules.concurrency(List.of(new ConcurrencyKey("k", 0))).orElseThrow().message())
                .as("a task's absent max takes the pool's").endsWith("(leave it out for the key's limit in the pool, else 1)");
        assertThat(field(LimitRules.check(set(LimitKind.CONCURRENCY_KEY, "k", 1, 2.0, null)))).isEqualTo("perSecond");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "open ai", null, 1.0, null)))).isEqualTo("name");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", 3, 1.0, null)))).isEqualTo("max");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, 0.0, null)))).isEqualTo("perSecond");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, Double.NaN, null)))).isEqualTo("perSecond");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, 1.0, 0)))).isEqualTo("burst");
        assertThat(field(LimitRules.check(set(LimitKind.RATE_LIMIT, "openai", null, null, 5)))).isEqualTo("burst");
        assertThat(field(LimitRules.check(new LimitSet("no pool", LimitKind.RATE_LIMIT, "openai", null, 1.0, null, null, T0))))
                .isEqualTo("pool");
    }

    @Test
    void aBurstDefaultsToOneSecondOfRefill() {
        assertThat(LimitRules.defaultBurst(0.2)).isEqualTo(1);
        assertThat(LimitRules.defaultBurst(10)).isEqualTo(10);
        assertThat(LimitRules.defaultBurst(2.5)).isEqualTo(3);
    }
}
