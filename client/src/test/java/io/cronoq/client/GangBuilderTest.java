package io.cronoq.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
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

/** A {@link Gang} is the one {@link GangSubmitted} its builder describes, and a gang no scheduler would take is refused. */
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
                Arguments.of((Supplier<Object>) () -> Gang.of(0, plain), "size", "size is 0; a gang has at least 1"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of()), "members", "members is empty"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).build(CLOCK), "pool", "pool is required"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).pool("p").id("-x"), "taskId", "a task id is"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).pool("p").id("a".repeat(254)).build(CLOCK),
                        "gangId", "use a gang id of at most 253 characters"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain).sameLabel(" "), "sameLabel",
                        "sameLabel ' ' is not a label key"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.id("mine"))).pool("p").id("g")
                        .build(CLOCK), "members[1].taskId", "a member's id is the gang's id and its rank (g-1)"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.pool("q"))).pool("p").build(CLOCK),
                        "members[1].pool", "every member runs in the gang's pool"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain, plain.tenant("research"))).pool("p")
                        .build(CLOCK), "members[1].tenant", "a gang runs for one tenant"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain.label("rack", "r1"), plain,
                        plain.label("rack", "r2"))).pool("p").sameLabel("rack").build(CLOCK), "members[2].labels.rack",
                        "members[0] requires rack=r1 and members[2] rack=r2"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain.concurrency("k")).pool("p").build(CLOCK),
                        "task.concurrency", "gangs do not take concurrency keys yet"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain.rateLimit("openai")).pool("p").build(CLOCK),
                        "task.rateLimits", "gangs do not take rate limits yet"),
                Arguments.of((Supplier<Object>) () -> Gang.of(List.of(plain.startAt(T0.plusSeconds(60)))).pool("p")
                        .build(CLOCK), "members[0].startAt", "gangs do not take a fixed start"),
                Arguments.of((Supplier<Object>) () -> Gang.of(2, plain.notBefore(T0.plusSeconds(60))).pool("p")
                        .build(CLOCK), "task.notBefore", "gangs do not take a not-before time"),
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
