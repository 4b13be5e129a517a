package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.ConcurrencyKey;
import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.RateLimitUse;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TaskBuilderTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);

    private static Task.Builder valid() {
        return Task.of("payload").pool("inference");
    }

    @Test
    void everyFieldReachesTheSubmissionNormalized() {
        TaskSubmitted e = Task.of("hello").pool("inference").id("job-42").submitter("alice").tenant("research")
                .label("gpu", "a100").labels(Map.of("zone", "eu"))
                .cpu("500m").memory("8Gi").disk("20G").gpu(1).packages("torch>=2.0,<3", "Numpy")
                .priority(Priority.HIGH)
                .deadline(T0.plusSeconds(3600)).notBefore(T0.plusSeconds(60))
                .startAt(T0.plusSeconds(120), Duration.ofSeconds(30))
                .timeout(Duration.ofMinutes(10))
                .retry(Retry.attempts(5).withBackoff(Duration.ofMillis(500), Duration.ofSeconds(30)).withMultiplier(3))
                .prefer("zone", "eu", 10)
                .build(CLOCK).toEvent();

        assertThat(e.getTaskId()).isEqualTo("job-42");
        assertThat(e.getPool()).isEqualTo("inference");
        assertThat(e.getSubmitter()).isEqualTo("alice");
        assertThat(e.getTenant()).isEqualTo("research");
        assertThat(e.getLabels()).containsExactlyInAnyOrderEntriesOf(Map.of("gpu", "a100", "zone", "eu"));
        assertThat(StandardCharsets.UTF_8.decode(e.getPayload()).toString()).isEqualTo("hello");
        assertThat(e.getResources().getCpuMillis()).isEqualTo(500);
        assertThat(e.getResources().getMemoryBytes()).isEqualTo(8L << 30);
        assertThat(e.getResources().getDiskBytes()).isEqualTo(20_000_000_000L);
        assertThat(e.getResources().getGpu()).isEqualTo(1);
        assertThat(e.getResources().getPackages()).containsExactly("torch>=2.0,<3", "Numpy");
        assertThat(e.getPriority()).isEqualTo(Priority.HIGH);
        assertThat(e.getDeadline()).isEqualTo(T0.plusSeconds(3600));
        assertThat(e.getNotBefore()).isEqualTo(T0.plusSeconds(60));
        assertThat(e.getStartAt()).isEqualTo(T0.plusSeconds(120));
        assertThat(e.getStartToleranceMs()).isEqualTo(30_000);
        assertThat(e.getTimeoutMs()).isEqualTo(600_000);
        assertThat(e.getRetry().getMaxAttempts()).isEqualTo(5);
        assertThat(e.getRetry().getInitialBackoffMs()).isEqualTo(500);
        assertThat(e.getRetry().getMaxBackoffMs()).isEqualTo(30_000);
        assertThat(e.getRetry().getMultiplier()).isEqualTo(3.0);
        assertThat(e.getPreferences()).containsExactly(new Preference(Map.of("zone", "eu"), 10));
        assertThat(e.getSubmittedAt()).isEqualTo(T0);
    }

    @Test
    void aMinimalTaskHasNoResourceRequestAndTheDefaults() {
        TaskSubmitted e = valid().build(CLOCK).toEvent();
        assertThat(e.getResources()).isNull();
        assertThat(e.getRetry()).isNull();
        assertThat(e.getPriority()).isEqualTo(Priority.NORMAL);
        assertThat(e.getLabels()).isEmpty();
        assertThat(e.getTenant()).as("the tenant default").isNull();
    }

    @Test
    void theTenantIsKeptOnTheTaskAndATemplateCanServeSeveralTenants() {
        Task.Builder gpu = valid().label("gpu", "a100");
        Task research = gpu.tenant("research").build(CLOCK);
        Task plain = gpu.build(CLOCK);

        assertThat(research.tenant()).contains("research");
        assertThat(research.toEvent().getTenant()).isEqualTo("research");
        assertThat(plain.tenant()).as("the template is unchanged").isEmpty();
        assertThat(gpu.tenant("research").tenant("ml-platform").build(CLOCK).tenant()).contains("ml-platform");
        assertThatThrownBy(() -> valid().tenant(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void concurrencyKeysAndRateLimitsReachTheSubmissionInTheOrderGiven() {
        Task task = valid().concurrency("customer-42", 2).concurrency("tenant:acme").rateLimit("openai", 3)
                .rateLimit("vendor.x").build(CLOCK);

        TaskSubmitted e = task.toEvent();
        assertThat(e.getConcurrency()).containsExactly(new ConcurrencyKey("customer-42", 2),
                new ConcurrencyKey("tenant:acme", null));
        assertThat(e.getRateLimits()).containsExactly(new RateLimitUse("openai", 3), new RateLimitUse("vendor.x", 1));
        assertThat(task.concurrency()).isEqualTo(e.getConcurrency());
        assertThat(task.rateLimits()).isEqualTo(e.getRateLimits());
        assertThat(valid().build(CLOCK).toEvent().getConcurrency()).as("none by default").isEmpty();
        assertThat(valid().build(CLOCK).toEvent().getRateLimits()).isEmpty();
    }

    @Test
    void aTemplatesKeysAndRateLimitsStayAsTheyWereAndATaskCannotBeChangedThroughThem() {
        Task.Builder keyed = valid().concurrency("customer-1");
        Task both = keyed.concurrency("customer-2", 5).rateLimit("openai").build(CLOCK);
        Task one = keyed.build(CLOCK);

        assertThat(one.concurrency()).extracting(ConcurrencyKey::getKey).containsExactly("customer-1");
        assertThat(one.rateLimits()).isEmpty();
        assertThat(both.concurrency()).extracting(ConcurrencyKey::getKey).containsExactly("customer-1", "customer-2");

        both.toEvent().getConcurrency().get(0).setMax(99);
        both.concurrency().get(0).setMax(99);
        both.rateLimits().get(0).setUnits(99);
        assertThat(both.toEvent().getConcurrency().get(0).getMax()).isNull();
        assertThat(both.toEvent().getRateLimits().get(0).getUnits()).isEqualTo(1);
        assertThatThrownBy(() -> both.concurrency().add(new ConcurrencyKey("x", 1)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aTaskNamesAtMostSixteenKeysAndSixteenRateLimits() {
        Task.Builder builder = valid();
        for (int i = 0; i < 16; i++) {
            builder = builder.concurrency("key-" + i).rateLimit("rate-" + i);
        }
        Task.Builder full = builder;

        assertThat(full.build(CLOCK).concurrency()).hasSize(16);
        assertThatThrownBy(() -> full.concurrency("key-16")).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.getMessage()).isEqualTo("concurrency: 17 concurrency keys; a task names at most 16"));
        assertThatThrownBy(() -> full.rateLimit("rate-16")).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("rateLimits"));
    }

    @Test
    void theIdIsDrawnOnceWhenTheTaskIsBuiltSoResendingTheTaskKeepsIt() {
        Task.Builder builder = valid();
        Task first = builder.build();
        Task second = builder.build();

        assertThat(first.id()).isNotEqualTo(second.id());
        assertThat(first.id()).isEqualTo(first.toEvent().getTaskId()).isEqualTo(first.toEvent().getTaskId());
        assertThat(first.id()).matches("[0-9a-f-]{36}");
        assertThat(valid().id("mine").build().id()).isEqualTo("mine");
    }

    static Stream<Arguments> invalidTasks() {
        return Stream.of(
                bad("no pool", () -> Task.of("p").build(), "pool"),
                bad("a pool with a space", () -> Task.of("p").pool("gpu pool"), "pool"),
                bad("an empty label name", () -> valid().label("", "a100"), "labels"),
                bad("a label name with a space", () -> valid().labels(Map.of("gpu model", "a100")), "labels"),
                bad("a label value with a space", () -> valid().label("gpu", "a 100"), "labels.gpu"),
                bad("an id with a slash", () -> valid().id("a/b"), "taskId"),
                bad("a tenant with a space", () -> valid().tenant("ml team"), "tenant"),
                bad("an empty tenant", () -> valid().tenant(""), "tenant"),
                bad("a tenant with a colon", () -> valid().tenant("ml:team"), "tenant"),
                bad("a concurrency key with a space", () -> valid().concurrency("customer 42"), "concurrency[0].key"),
                bad("an empty concurrency key", () -> valid().concurrency("", 2), "concurrency[0].key"),
                bad("no concurrency key", () -> valid().concurrency(null), "concurrency[0].key"),
                bad("a concurrency key of 201 characters", () -> valid().concurrency("k".repeat(201)),
                        "concurrency[0].key"),
                bad("a concurrency key given twice", () -> valid().concurrency("c-1").concurrency("c-1", 3),
                        "concurrency[1].key"),
                bad("a concurrency max of 0", () -> valid().concurrency("c-1").concurrency("c-2", 0), "concurrency[1].max"),
                bad("a concurrency max above a million", () -> valid().concurrency("c-1", 1_000_001),
                        "concurrency[0].max"),
                bad("a rate limit name with a slash", () -> valid().rateLimit("open/ai"), "rateLimits[0].name"),
                bad("an empty rate limit name", () -> valid().rateLimit(""), "rateLimits[0].name"),
                bad("a rate limit given twice", () -> valid().rateLimit("openai").rateLimit("openai", 2),
                        "rateLimits[1].name"),
                bad("no units of a rate limit", () -> valid().rateLimit("openai", 0), "rateLimits[0].units"),
                bad("negative units of a rate limit", () -> valid().rateLimit("x").rateLimit("openai", -3),
                        "rateLimits[1].units"),
                bad("a cpu unit", () -> valid().cpu("2 cores"), "resources.cpu"),
                bad("memory in GB", () -> valid().memory("8GB"), "resources.memory"),
                bad("memory in milli-bytes", () -> valid().memory("512m"), "resources.memory"),
                bad("negative disk", () -> valid().disk("-1Gi"), "resources.disk"),
                bad("negative gpus", () -> valid().gpu(-1), "resources.gpu"),
                bad("a package operator", () -> valid().packages("numpy", "torch=>2"), "resources.packages[1]"),
                bad("a later package", () -> valid().packages("numpy").packages("torch~=2"), "resources.packages[1]"),
                bad("a preference without labels", () -> valid().prefer(Map.of(), 5), "preferences[0].labels"),
                bad("a preference label", () -> valid().prefer("zone", "eu", 5).prefer("zone", "e u", 5),
                        "preferences[1].labels.zone"),
                bad("a preference weight", () -> valid().prefer("zone", "eu", 0), "preferences[0].weight"),
                bad("a zero timeout", () -> valid().timeout(Duration.ZERO), "timeoutMs"),
                bad("a negative start tolerance", () -> valid().startAt(T0, Duration.ofSeconds(-1)), "startToleranceMs"),
                bad("no attempts", () -> valid().retry(Retry.attempts(0)).build(), "retry.maxAttempts"),
                bad("a backoff cap below the start",
                        () -> valid().retry(Retry.DEFAULT.withBackoff(Duration.ofSeconds(10), Duration.ofSeconds(1))).build(),
                        "retry.maxBackoffMs"),
                bad("a shrinking backoff", () -> valid().retry(Retry.DEFAULT.withMultiplier(0.5)).build(),
                        "retry.multiplier"));
    }

    private static Arguments bad(String what, Supplier<Object> step, String field) {
        return Arguments.of(what, (ThrowingCallable) step::get, field);
    }

    @ParameterizedTest(name = "{0} is refused on {2}")
    @MethodSource("invalidTasks")
    void theBuilderRefusesEachInvalidFieldNamingIt(String what, ThrowingCallable step, String field) {
        assertThatThrownBy(step).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.getMessage()).startsWith(field + ": ");
        });
    }

    @Test
    void aRefusedStepLeavesTheBuilderUsable() {
        Task.Builder builder = valid();
        assertThatThrownBy(() -> builder.memory("8GB")).isInstanceOf(InvalidInputException.class);
        assertThat(builder.memory("8Gi").build().toEvent().getResources().getMemoryBytes()).isEqualTo(8L << 30);
    }

    @Test
    void stepsReturnNewBuildersAndLeaveTheOriginalUnchanged() {
        Task.Builder base = valid().label("zone", "eu");
        Task.Builder gpu = base.label("gpu", "a100").memory("8Gi").packages("torch").prefer("rack", "r1", 3)
                .priority(Priority.CRITICAL).id("gpu-job").pool("training");

        TaskSubmitted original = base.build(CLOCK).toEvent();
        assertThat(original.getLabels()).containsExactlyEntriesOf(Map.of("zone", "eu"));
        assertThat(original.getResources()).isNull();
        assertThat(original.getPreferences()).isEmpty();
        assertThat(original.getPriority()).isEqualTo(Priority.NORMAL);
        assertThat(original.getPool()).isEqualTo("inference");
        assertThat(original.getTaskId()).isNotEqualTo("gpu-job");

        TaskSubmitted derived = gpu.build(CLOCK).toEvent();
        assertThat(derived.getLabels()).containsExactlyInAnyOrderEntriesOf(Map.of("zone", "eu", "gpu", "a100"));
        assertThat(derived.getPool()).isEqualTo("training");
    }

    @Test
    void inputsAreCopiedSoTheCallerCanReuseThem() {
        byte[] payload = "v1".getBytes(StandardCharsets.UTF_8);
        Map<String, String> labels = new HashMap<>(Map.of("gpu", "a100"));
        Task.Builder builder = Task.of(payload).pool("inference").labels(labels);
        payload[1] = '2';
        labels.put("zone", "us");

        Task task = builder.build();
        assertThat(new String(task.payload(), StandardCharsets.UTF_8)).isEqualTo("v1");
        assertThat(task.labels()).containsOnlyKeys("gpu");
    }

    @Test
    void aBuiltTaskCannotBeChangedThroughWhatItHandsOut() {
        Task task = valid().label("gpu", "a100").build();
        TaskSubmitted event = task.toEvent();
        event.setPool("elsewhere");
        event.getLabels().put("zone", "us");
        task.payload()[0] = 'X';

        assertThat(task.pool()).isEqualTo("inference");
        assertThat(task.labels()).containsOnlyKeys("gpu");
        assertThat(new String(task.payload(), StandardCharsets.UTF_8)).isEqualTo("payload");
        assertThatThrownBy(() -> task.labels().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void retryStepsReturnNewPolicies() {
        Retry five = Retry.attempts(5);
        Retry slower = five.withBackoff(Duration.ofSeconds(5), Duration.ofMinutes(5));
        assertThat(five.initialBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(slower.initialBackoff()).isEqualTo(Duration.ofSeconds(5));
        assertThat(slower.maxAttempts()).isEqualTo(5);
        assertThat(Retry.never().maxAttempts()).isEqualTo(1);
        assertThat(List.of(five.withMultiplier(1.5).multiplier())).containsExactly(1.5);
    }

    @Test
    void parentsAreNamedWithHowTheyMustEndAndCheckedAtOnce() {
        TaskSubmitted event = Task.of("reduce").pool("batch").id("reduce").after("shard-1")
                .after("train", "gpu", io.cronoq.events.ParentCondition.FINISHED).runIfParentUnmet().build().toEvent();

        assertThat(event.getAfter()).containsExactly(
                new io.cronoq.events.Dependency("shard-1", null, io.cronoq.events.ParentCondition.SUCCEEDED),
                new io.cronoq.events.Dependency("train", "gpu", io.cronoq.events.ParentCondition.FINISHED));
        assertThat(event.getRunIfParentUnmet()).isTrue();
        assertThatThrownBy(() -> Task.of("x").after("bad id!"))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("after[0].task");
        assertThatThrownBy(() -> Task.of("x").pool("batch").id("self").after("self").build())
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("cannot wait for itself");
    }
}
