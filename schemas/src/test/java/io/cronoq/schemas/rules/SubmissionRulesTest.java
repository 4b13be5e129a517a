package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.Preference;
import io.cronoq.events.Priority;
import io.cronoq.events.ResourceRequest;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@link Rules#checkSubmission}: every rule of a whole submission, each naming its field. */
class SubmissionRulesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static TaskSubmitted task(Consumer<TaskSubmitted> change) {
        TaskSubmitted t = new TaskSubmitted("t1", "inference", Map.of(), null, ByteBuffer.allocate(0), Priority.NORMAL,
                null, null, null, null, null, null, List.of(), null, T0, null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
        change.accept(t);
        return t;
    }

    private static ResourceRequest resources(Long cpu, Long memory, Long disk, Integer gpu, List<String> packages) {
        return new ResourceRequest(cpu, memory, disk, gpu, packages);
    }

    private static String field(TaskSubmitted t) {
        return Rules.checkSubmission(t).map(Violation::field).orElse(null);
    }

    @Test
    void aCompleteValidSubmissionPasses() {
        assertThat(Rules.checkSubmission(task(t -> {
            t.setResources(resources(500L, 8L << 30, 0L, 1, List.of("torch>=2.0,<3", "numpy")));
            t.setPreferences(List.of(new Preference(Map.of("zone", "eu"), 10)));
            t.setStartAt(T0);
            t.setStartToleranceMs(0L);
            t.setTimeoutMs(60_000L);
            t.setRetry(new RetryPolicy(3, 1000L, 60_000L, 2.0));
        }))).isEmpty();
    }

    @Test
    void aPayloadOverHalfAMebibyteIsRefusedWithTheLimitAndWhatToDo() {
        assertThat(Rules.checkSubmission(task(t -> t.setPayload(java.nio.ByteBuffer.allocate(Rules.MAX_PAYLOAD_BYTES)))))
                .isEmpty();
        assertThat(Rules.checkSubmission(task(t -> t.setPayload(java.nio.ByteBuffer.allocate(Rules.MAX_PAYLOAD_BYTES + 1)))))
                .hasValueSatisfying(v -> {
                    assertThat(v.field()).isEqualTo("payload");
                    assertThat(v.message()).contains("524289 bytes").contains("512 KiB").contains("reference");
                });
    }

    @Test
    void theBasicRulesComeFirst() {
        assertThat(field(task(t -> t.setPool("")))).isEqualTo("pool");
    }

    @Test
    void negativeResourcesAreRefusedByDimension() {
        assertThat(field(task(t -> t.setResources(resources(-1L, null, null, null, List.of())))))
                .isEqualTo("resources.cpuMillis");
        assertThat(field(task(t -> t.setResources(resources(null, -1L, null, null, List.of())))))
                .isEqualTo("resources.memoryBytes");
        assertThat(field(task(t -> t.setResources(resources(null, null, -1L, null, List.of())))))
                .isEqualTo("resources.diskBytes");
        assertThat(field(task(t -> t.setResources(resources(null, null, null, -1, List.of())))))
                .isEqualTo("resources.gpu");
    }

    @Test
    void anUnreadablePackageIsRefusedByItsIndex() {
        assertThat(Rules.checkSubmission(task(t -> t.setResources(resources(null, null, null, null,
                List.of("torch", "numpy=>1")))))).hasValueSatisfying(v -> {
                    assertThat(v.field()).isEqualTo("resources.packages[1]");
                    assertThat(v.message()).contains("'numpy=>1'").contains("'=>'");
                });
    }

    @Test
    void preferencesNeedLabelsValidLabelsAndAWeightFrom1To100() {
        assertThat(field(task(t -> t.setPreferences(List.of(new Preference(Map.of(), 1))))))
                .isEqualTo("preferences[0].labels");
        assertThat(field(task(t -> t.setPreferences(List.of(new Preference(Map.of("zone", "eu"), 1),
                new Preference(Map.of("zone", "bad value"), 1)))))).isEqualTo("preferences[1].labels.zone");
        assertThat(field(task(t -> t.setPreferences(List.of(new Preference(Map.of("zone", "eu"), 0))))))
                .isEqualTo("preferences[0].weight");
        assertThat(field(task(t -> t.setPreferences(List.of(new Preference(Map.of("zone", "eu"), 101))))))
                .isEqualTo("preferences[0].weight");
    }

    @Test
    void timesMustMakeSense() {
        assertThat(field(task(t -> t.setTimeoutMs(0L)))).isEqualTo("timeoutMs");
        assertThat(field(task(t -> t.setStartToleranceMs(1000L)))).isEqualTo("startToleranceMs");
        assertThat(field(task(t -> {
            t.setStartAt(T0);
            t.setStartToleranceMs(-1L);
        }))).isEqualTo("startToleranceMs");
    }

    @Test
    void retryBackoffMustGrowFromANonNegativeStartToACapAboveIt() {
        assertThat(field(task(t -> t.setRetry(new RetryPolicy(0, 1000L, 60_000L, 2.0))))).isEqualTo("retry.maxAttempts");
        assertThat(field(task(t -> t.setRetry(new RetryPolicy(3, -1L, 60_000L, 2.0))))).isEqualTo("retry.initialBackoffMs");
        assertThat(field(task(t -> t.setRetry(new RetryPolicy(3, 5000L, 1000L, 2.0))))).isEqualTo("retry.maxBackoffMs");
        assertThat(field(task(t -> t.setRetry(new RetryPolicy(3, 1000L, 60_000L, 0.5))))).isEqualTo("retry.multiplier");
        assertThat(field(task(t -> t.setRetry(new RetryPolicy(3, 1000L, 60_000L, Double.NaN))))).isEqualTo("retry.multiplier");
    }
}
