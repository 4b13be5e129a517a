package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link GangFeasibility}: what the credentials say a gang could never get is refused, naming the field. */
class GangFeasibilityTest {

    private static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    private static Credential worker(String name, Set<String> pools, Set<String> labels, List<String> ids) {
        return new Credential(name, Role.WORKER, (name + "-secret-0123456789").getBytes(StandardCharsets.UTF_8), pools,
                labels, ids);
    }

    private static Credential submitter() {
        return new Credential("submitter", Role.SUBMITTER, "submitter-secret-0123456789".getBytes(StandardCharsets.UTF_8),
                null, Set.of(), null);
    }

    private static GangSubmitted gang(GangPlacement layout, String sameLabel, List<Map<String, String>> labels) {
        List<TaskSubmitted> members = new ArrayList<>();
        for (int rank = 0; rank < labels.size(); rank++) {
            members.add(TaskSubmitted.newBuilder().setTaskId("g-" + rank).setPool("gpu").setLabels(labels.get(rank))
                    .setSubmittedAt(T0).build());
        }
        return new GangSubmitted("g", "gpu", layout, sameLabel, members, "tests", T0);
    }

    private static GangSubmitted spread(int size, Map<String, String> labels) {
        return gang(GangPlacement.SPREAD, null, java.util.Collections.nCopies(size, labels));
    }

    private static ApiException refused(GangSubmitted gang, Credentials credentials) {
        return catchThrowableOfType(() -> GangFeasibility.check(gang, credentials), ApiException.class);
    }

    @Test
    void aSpreadGangWiderThanTheWorkerIdsTheCredentialsAllowIsRefusedOnPlacement() {
        Credentials credentials = Credentials.of(List.of(submitter(),
                worker("a100s", Set.of("gpu"), Set.of("gpu=a100"), List.of("w1", "w2")),
                worker("more-a100s", null, Set.of("gpu=a100", "rack=r1"), List.of("w2", "w3")),
                worker("cpus", Set.of("gpu"), Set.of("gpu=none"), List.of("c1", "c2", "c3", "c4")),
                worker("elsewhere", Set.of("cpu"), Set.of("gpu=a100"), List.of("x1", "x2"))));

        ApiException e = refused(spread(4, Map.of("gpu", "a100")), credentials);

        assertThat(e).isNotNull();
        assertThat(e.field()).isEqualTo("placement");
        assertThat(e.getMessage()).isEqualTo("spread puts each of the 4 members on its own worker, but the credentials "
                + "of pool gpu let at most 3 workers register with what the members require (w1, w2, w3): lower the size, "
                + "use placement any or pack, or allow more worker ids");
        assertThatCode(() -> GangFeasibility.check(spread(3, Map.of("gpu", "a100")), credentials))
                .as("three distinct workers can exist").doesNotThrowAnyException();
        assertThatCode(() -> GangFeasibility.check(gang(GangPlacement.PACK, null,
                java.util.Collections.nCopies(4, Map.of("gpu", "a100"))), credentials))
                .as("pack may share workers").doesNotThrowAnyException();
    }

    @Test
    void membersThatDifferCountEveryWorkerThatCouldRunOneOfThem() {
        Credentials credentials = Credentials.of(List.of(
                worker("a100s", null, Set.of("gpu=a100"), List.of("g1")),
                worker("cpus", null, Set.of("cpu=big"), List.of("c1"))));

        assertThatCode(() -> GangFeasibility.check(gang(GangPlacement.SPREAD, null,
                List.of(Map.of("cpu", "big"), Map.of("gpu", "a100"))), credentials)).doesNotThrowAnyException();
        assertThat(refused(gang(GangPlacement.SPREAD, null, List.of(Map.of("cpu", "big"), Map.of("gpu", "a100"),
                Map.of("gpu", "h100"))), credentials).getMessage())
                .contains("let at most 2 workers register with what the members require (c1, g1)");
    }

    @Test
    void aGlobAnUnboundedIdsOrAnAdminCouldRegisterAnyNumberOfWorkers() {
        GangSubmitted wide = spread(50, Map.of("gpu", "a100"));
        Credential literal = worker("a100s", null, Set.of("gpu=a100"), List.of("w1"));

        assertThatCode(() -> GangFeasibility.check(wide, Credentials.of(List.of(literal,
                worker("glob", null, Set.of("gpu=a100"), List.of("gpu-eu-*")))))).doesNotThrowAnyException();
        assertThatCode(() -> GangFeasibility.check(wide, Credentials.of(List.of(literal,
                worker("any-id", null, Set.of("gpu=a100"), null))))).doesNotThrowAnyException();
        assertThatCode(() -> GangFeasibility.check(wide, Credentials.of(List.of(literal,
                new Credential("admin", Role.ADMIN, "admin-secret-0123456789".getBytes(StandardCharsets.UTF_8), null,
                        Set.of(), null))))).doesNotThrowAnyException();
        assertThat(refused(wide, Credentials.of(List.of(literal,
                worker("glob-without-the-label", null, Set.of("gpu=h100"), List.of("gpu-eu-*"))))))
                .as("a glob whose workers may not carry gpu=a100 adds no worker").isNotNull();
    }

    @Test
    void anOpenGatewayRefusesNothing() {
        assertThatCode(() -> GangFeasibility.check(spread(1_000, Map.of("gpu", "a100")), Credentials.none()))
                .doesNotThrowAnyException();
        assertThatCode(() -> GangFeasibility.check(gang(GangPlacement.ANY, "nvlink", List.of(Map.of())),
                Credentials.none())).doesNotThrowAnyException();
    }

    @Test
    void aSameLabelKeyNoCredentialMayGiveItsWorkersIsRefusedNamingTheKeysTheyMay() {
        Credentials credentials = Credentials.of(List.of(
                worker("racked", Set.of("gpu"), Set.of("rack=r1", "rack=r2", "gpu=a100"), null),
                worker("zoned", Set.of("cpu"), Set.of("zone=z1"), null)));

        ApiException e = refused(gang(GangPlacement.ANY, "zone", List.of(Map.of(), Map.of())), credentials);

        assertThat(e.field()).isEqualTo("sameLabel");
        assertThat(e.getMessage()).isEqualTo("no credential of pool gpu may give its workers a label zone, so no worker "
                + "could ever carry one value of it; name a key they may carry (gpu, rack) or drop sameLabel");
        assertThatCode(() -> GangFeasibility.check(gang(GangPlacement.ANY, "rack", List.of(Map.of(), Map.of())),
                credentials)).doesNotThrowAnyException();
    }
}
