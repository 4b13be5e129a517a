package io.cronoq.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real agent against a scheduler with credentials on a real broker: a worker whose credential
 * allows only {@code gpu=a100} is refused when it claims {@code gpu=h100} and never runs the task,
 * which the correctly credentialed worker runs.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CredentialedWorkerIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String POOL = "gpus";
    private static final String A100_SECRET = "a100-secret-0123456789";
    private static final String H100_SECRET = "h100-secret-0123456789";

    private static SchedulerHarness scheduler;

    private final List<String> ran = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startScheduler() throws Exception {
        scheduler = SchedulerHarness.start(broker, Credentials.of(List.of(
                new Credential("a100-workers", Role.WORKER, A100_SECRET.getBytes(StandardCharsets.UTF_8),
                        Set.of(POOL), Set.of("gpu=a100")),
                new Credential("h100-workers", Role.WORKER, H100_SECRET.getBytes(StandardCharsets.UTF_8),
                        Set.of(POOL), Set.of("gpu=h100")))));
    }

    @AfterAll
    static void stopScheduler() throws Exception {
        scheduler.close();
    }

    private CronoqWorker.Builder worker(String id, String credential, String secret) {
        return scheduler.worker(id, POOL).label("gpu", "h100").slots(1).credential(credential, secret)
                .handler(ctx -> {
                    ran.add(id + ":" + ctx.taskId());
                    return new byte[0];
                });
    }

    @Test
    void workerClaimingALabelItsCredentialDoesNotAllowIsRefusedAndTheHonestOneGetsTheTask() throws Exception {
        CronoqWorker liar = worker("liar", "a100-workers", A100_SECRET).build();

        assertThatThrownBy(liar::start).isInstanceOf(RegistrationRejectedException.class)
                .hasMessageContaining("gpu=h100").hasMessageContaining("a100-workers");

        try (CronoqWorker honest = worker("honest", "h100-workers", H100_SECRET).build().start()) {
            assertThat(honest.state()).isEqualTo(CronoqWorker.State.ACTIVE);
            scheduler.submit("h100-task", POOL, Map.of("gpu", "h100"), "go");

            assertThat(scheduler.awaitFinished("h100-task", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(ran).containsExactly("honest:h100-task");
            assertThat(scheduler.journaled(AttemptAssigned.class)).filteredOn(a -> a.getTaskId().equals("h100-task"))
                    .extracting(AttemptAssigned::getWorkerId).containsExactly("honest");
            await().until(() -> scheduler.journaled(RegistrationRejected.class).stream()
                    .anyMatch(r -> r.getWorkerId().equals("liar")));
            RegistrationRejected rejected = scheduler.journaled(RegistrationRejected.class).stream()
                    .filter(r -> r.getWorkerId().equals("liar")).findFirst().orElseThrow();
            assertThat(rejected.getCode()).isEqualTo(RejectionCode.PERMISSION_DENIED);
        }
    }

    @Test
    void embeddedExecutorsSignTheirGroupWorkersRegistrations() {
        try (EmbeddedExecutors embedded = scheduler.embedded("signed-app").credential("a100-workers", A100_SECRET)
                .handler(ctx -> {
                    ran.add("embedded:" + ctx.taskId());
                    return new byte[0];
                }).build()) {
            embedded.setGroupCapacity(POOL, Map.of("gpu", "a100"), 1);
            scheduler.submit("a100-task", POOL, Map.of("gpu", "a100"), "go");

            assertThat(scheduler.awaitFinished("a100-task", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(ran).containsExactly("embedded:a100-task");
        }
    }

    @Test
    void workerSigningWithTheWrongSecretIsRefused() {
        CronoqWorker impostor = scheduler.worker("impostor", POOL).label("gpu", "a100").slots(1)
                .credential("a100-workers", "guessed-secret").handler(ctx -> new byte[0]).build();

        assertThatThrownBy(impostor::start).isInstanceOf(RegistrationRejectedException.class)
                .hasMessageContaining("signature does not verify");
    }
}
