package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.Priority;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.schemas.rules.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A {@link Gang} is the one {@link GangSubmitted} its builder describes, and a gang no scheduler would take is refused
 * by the scheduler's own rules before it is sent.
 */
class GangBuilderTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(T0, ZoneOffset.UTC);

    @Test
    void oneTaskNTimesMakesNMembersNamedByTheGangIdAndRank() {
        Gang gang = Gang.of(3, Task.of("hi").label("gpu", "a100").tenant("research")).pool("train").id("run-7")
                .placement(GangPlacement.SPREAD).sameLabel("rack").build(CLOCK);
        GangSubmitted e = gang.toEvent();

        assertThat(gang.memberIds()).containsExactly("run-7-0", "run-7-1", "run-7-2");
        assertThat(e.getGangId()).isEqualTo("run-7");
        assertThat(e.getPool()).isEqualTo("train");
        assertThat(e.getPlacement()).isEqualTo(GangPlacement.SPREAD);
        assertThat(e.getSameLabel()).isEqualTo("rack");
        assertThat(e.getSubmittedAt()).isEqualTo(T0);
        assertThat(e.getMembers()).allSatisfy(m -> {
            assertThat(m.getPool()).isEqualTo("train");
            assertThat(m.getTenant()).isEqualTo("research");
            assertThat(m.getLabels()).isEqualTo(Map.of("gpu", "a100"));
            assertThat(m.getSubmittedAt()).isEqualTo(T0);
            assertThat(m.getGang()).as("the scheduler sets it").isNull();
        });
    }

    @Test
    void membersMayNameConcurrencyKeysAndRateLimitsTheGangMeetsAsAWhole() {
        GangSubmitted e = Gang.of(2, Task.of("hi").concurrency("licence").rateLimit("openai")).pool("p").id("g")
                .build(CLOCK).toEvent();

        assertThat(e.getMembers()).allSatisfy(m -> {
            assertThat(m.getConcurrency()).extracting(c -> c.getKey()).containsExactly("licence");
            assertThat(m.getRateLimits()).extracting(r -> r.getName()).containsExactly("openai");
        });
    }

    @Test
    void differentMembersKeepTheirRankOrderAndThePlacementDefaultsToAny() {
        Gang gang = Gang.of(List.of(Task.of("coordinator").cpu("1"), Task.of("worker").gpu(1), Task.of("worker")
                .gpu(1).pool("train"))).pool("train").id("job").build(CLOCK);

        assertThat(gang.placement()).isEqualTo(GangPlacement.ANY);
        assertThat(gang.sameLabel()).isEmpty();
        assertThat(gang.toEvent().getMembers()).extracting(TaskSubmitted::getTaskId).containsExactly("job-0", "job-1",
                "job-2");
        assertThat(gang.toEvent().getMembers()).extracting(m -> StandardCharsets.UTF_8.decode(m.getPayload()).toString())
                .containsExactly("coordinator", "worker", "worker");
    }

    @Test
    void aGangWithoutAnIdGetsOneFixedWhenBuilt() {
        Gang gang = Gang.of(2, Task.of("x")).pool("p").build(CLOCK);

        assertThat(gang.id()).isNotBlank();
        assertThat(gang.memberIds()).containsExactly(gang.id() + "-0", gang.id() + "-1");
        assertThat(gang).isEqualTo(gang).hasSameHashCodeAs(gang);
    }

    static Stream<Arguments> refusals() {
        Task.Builder plain = Task.of("x");
        return Stream.of(
                Arguments.of((Supplier<Object>) () -> Gang.of(0, plain), "size", "size is 0; a gang has 1 to 1024 members"),
                Arguments.of((Supplier<Object>) () -> Gang.of(1025, plain), "size", "size is 1025; a gang has 1 to 1024"),
                Arguments.of((Supplier<Object>) () -> Gang.of(java.util.Collections.nCopies(1025, plain)).pool("p")
                        .build(CLOCK), "members", "a gang of 1025 members; a gang has 1 to 1024 members"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of()), "members", "members is empty"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).build(CLOCK), "pool", "pool is required"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).pool("p").id("-x"), "gangId", "a gang id is a task id"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).pool("p").id("a".repeat(250)), "gangId",
                        "a gang id is a task id of at most 249 characters"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).sameLabel(" "), "sameLabel",
                        "sameLabel is ' '; it names one label key"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.id("mine"))).pool("p").id("g")
                        .build(CLOCK), "members[1].taskId", "a member's id is the gang's id and its rank (g-1)"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.pool("q"))).pool("p").build(CLOCK),
                        "members[1].pool", "every member runs in the gang's pool"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.tenant("research"))).pool("p")
                        .build(CLOCK), "members[1].tenant", "members[1].tenant is research and members[0].tenant is null; a gang runs for one "
                        + "tenant"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.priority(Priority.HIGH))).pool("p")
                        .build(CLOCK), "members[1].priority", "a gang has one priority"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain.label("rack", "r1"), plain,
                        plain.label("rack", "r2"))).pool("p").sameLabel("rack").build(CLOCK), "sameLabel",
                        "members require rack=r1 and rack=r2, so they can never share one value of rack"),
                Arguments.of((Supplier<Object>) () -> Gang.of(3, plain.concurrency("licence", 2)).pool("p").build(CLOCK),
                        "members[0].concurrency[0].max", "3 members name concurrency key licence and members[0] allows "
                        + "at most 2 holders; a gang's members start together, so raise the max to at least 3"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain.startAt(T0.plusSeconds(60)))).pool("p")
                        .build(CLOCK), "members[0].startAt", "a gang's members start when the gang is placed"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain.notBefore(T0.plusSeconds(60))).pool("p")
                        .build(CLOCK), "members[0].notBefore", "a gang's members start when the gang is placed"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, Task.of(new byte[300_000])).pool("p").build(CLOCK),
                        "task.payload", "a gang travels as one Kafka record"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refusals")
    void aGangNoSchedulerWouldTakeIsRefusedNamingTheField(Supplier<Object> build, String field, String message) {
        assertThatThrownBy(build::get).isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.violation().message()).contains(message);
        });
    }
}
