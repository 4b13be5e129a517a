package io.cronoq.schemas.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.Priority;
import io.cronoq.events.RetryPolicy;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerRegistered;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RulesTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    // Constructors, not builders: Avro 1.12 builders resolve enum defaults through its class
    // allow-list, which does not trust io.cronoq.events unless the JVM is told to.
    private static TaskSubmitted task(String pool, String id, Map<String, String> labels) {
        return new TaskSubmitted(id, pool, labels, null, ByteBuffer.allocate(0), Priority.NORMAL, null, null, null,
                null, null, null, List.of(), null, T0, null, java.util.List.of(), java.util.List.of(), null, new java.util.ArrayList<>(), false, null);
    }

    private static WorkerRegistered worker(String id, int slots, Map<String, String> labels) {
        return new WorkerRegistered(id, "p", labels, slots, null, null, null, null, T0);
    }

    @Test
    void validInputsPass() {
        assertThat(Rules.check(task("inference", "job-1:a.b_c", Map.of("gpu", "a100", "k8s.io/zone", "eu-west-1"))))
                .isEmpty();
        assertThat(Rules.check(worker("w1", 16, Map.of()))).isEmpty();
        assertThat(Rules.pool("p".repeat(128))).isEmpty();
        assertThat(Rules.taskId("t".repeat(255))).isEmpty();
    }

    @Test
    void emptyPoolIsRejectedWithWhatIsAllowed() {
        assertThat(Rules.check(task("", "t1", Map.of()))).hasValueSatisfying(v -> {
            assertThat(v.field()).isEqualTo("pool");
            assertThat(v.message()).contains("pool is empty").contains("1 to 128 characters");
        });
    }

    @Test
    void poolOutsideTheDocumentedSetIsRejected() {
        assertThat(Rules.pool("has space")).hasValueSatisfying(v -> assertThat(v.message()).contains("'has space'"));
        assertThat(Rules.pool("-leading")).isPresent();
        assertThat(Rules.pool("p".repeat(129))).isPresent();
    }

    @Test
    void idsMayBeLongerThanPoolsButNotEmpty() {
        assertThat(Rules.taskId("t".repeat(256))).hasValueSatisfying(v -> assertThat(v.field()).isEqualTo("taskId"));
        assertThat(Rules.workerId("")).hasValueSatisfying(v -> assertThat(v.message()).contains("worker id is 1 to 255"));
        assertThat(Rules.taskId(null)).hasValueSatisfying(v -> assertThat(v.message()).startsWith("taskId is empty"));
    }

    @Test
    void slotsMustBePositive() {
        assertThat(Rules.check(worker("w1", 0, Map.of()))).hasValueSatisfying(v -> {
            assertThat(v.field()).isEqualTo("slots");
            assertThat(v.message()).contains("slots is 0").contains("1 to 65536");
        });
        assertThat(Rules.slots(Rules.MAX_SLOTS + 1)).isPresent();
    }

    @Test
    void labelNameAndValueMustBeInTheDocumentedSet() {
        assertThat(Rules.labels(Map.of("", "x"))).hasValueSatisfying(v -> {
            assertThat(v.field()).isEqualTo("labels");
            assertThat(v.message()).contains("label name is empty");
        });
        assertThat(Rules.labels(Map.of("gpu", ""))).hasValueSatisfying(v -> {
            assertThat(v.field()).isEqualTo("labels.gpu");
            assertThat(v.message()).contains("label value is empty").contains("1 to 63 characters");
        });
        assertThat(Rules.labels(Map.of("gpu", "a/100"))).hasValueSatisfying(v ->
                assertThat(v.message()).contains("'a/100'"));
        assertThat(Rules.labels(Map.of("trailing-", "x"))).isPresent();
        assertThat(Rules.labels(Map.of("n".repeat(64), "x"))).isPresent();
        assertThat(Rules.labels(Map.of("a=b", "x"))).isPresent();
        assertThat(Rules.labels(Map.of("zone", "eu,us"))).isPresent();
    }

    @Test
    void completionNeedsAnAttemptNumberFromOne() {
        AttemptSucceeded e = new AttemptSucceeded("t", "p", 0, "w", 1L, T0, null);
        assertThat(Rules.check(e)).hasValueSatisfying(v -> assertThat(v.field()).isEqualTo("attempt"));
    }

    @Test
    void retryPolicyGivesAtLeastOneAttempt() {
        TaskSubmitted e = task("p", "t", Map.of());
        e.setRetry(new RetryPolicy(0, 1000L, 60000L, 2.0));
        assertThat(Rules.check(e)).hasValueSatisfying(v -> assertThat(v.field()).isEqualTo("retry.maxAttempts"));
    }

    @Test
    void characterChecksAgreeWithTheDocumentedPatterns() {
        Random random = new Random(7);
        String alphabet = "aZ09._:-/=, é\t";
        for (int i = 0; i < 200_000; i++) {
            int length = random.nextInt(8) == 0 ? 60 + random.nextInt(200) : random.nextInt(6);
            StringBuilder b = new StringBuilder(length);
            for (int j = 0; j < length; j++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String s = b.toString();
            assertThat(Rules.isPool(s)).as("pool %s", s).isEqualTo(Rules.POOL.matcher(s).matches());
            assertThat(Rules.isId(s)).as("id %s", s).isEqualTo(Rules.ID.matcher(s).matches());
            assertThat(Rules.isLabelName(s)).as("name %s", s).isEqualTo(Rules.LABEL_NAME.matcher(s).matches());
            assertThat(Rules.isLabelValue(s)).as("value %s", s).isEqualTo(Rules.LABEL_VALUE.matcher(s).matches());
        }
    }

    @Test
    void violationThrowsAsInvalidInputException() {
        Violation v = Rules.pool("").orElseThrow();
        assertThatThrownBy(() -> { throw v.toException(); })
                .isInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("pool: pool is empty")
                .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo("pool"));
    }
}
