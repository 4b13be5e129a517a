package io.cronoq.scheduler.topology;

import static io.cronoq.scheduler.fixtures.Events.T0;
import static io.cronoq.scheduler.fixtures.Events.register;
import static io.cronoq.scheduler.fixtures.Events.submit;
import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.JournalEntry;
import io.cronoq.events.RegistrationAccepted;
import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.RegistrationGuard;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.schemas.auth.RegistrationSignature;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.KeyValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Worker registrations checked against credentials before the policy, through the whole topology. */
class RegistrationAuthTopologyTest {

    private static final String POOL = "inference";
    private static final byte[] A100_SECRET = RegistrationSignature.secretBytes("a100-secret");
    private static final byte[] H100_SECRET = RegistrationSignature.secretBytes("h100-secret");
    private static final byte[] VIEWER_SECRET = RegistrationSignature.secretBytes("viewer-secret");
    private static final byte[] EU_SECRET = RegistrationSignature.secretBytes("eu-secret");
    private static final Credentials CREDENTIALS = Credentials.of(List.of(
            new Credential("a100-workers", Role.WORKER, A100_SECRET, Set.of(POOL), Set.of("gpu=a100", "zone=eu")),
            new Credential("h100-workers", Role.WORKER, H100_SECRET, Set.of(POOL), Set.of("gpu=h100")),
            new Credential("viewer", Role.VIEWER, VIEWER_SECRET, null, Set.of()),
            new Credential("eu-workers", Role.WORKER, EU_SECRET, Set.of(POOL), Set.of("zone=eu"),
                    List.of("eu-*", "spare"))));

    private final SchedulerDriver scheduler =
            new SchedulerDriver(new RegistrationGuard(CREDENTIALS, Duration.ofMinutes(5).toMillis()));

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void workerClaimingLabelItsCredentialDoesNotAllowIsRefusedAndGetsNoTask() {
        WorkerRegistered liar = RegistrationSignature.signed(
                register("liar", POOL, Map.of("gpu", "h100"), 4), "a100-workers", A100_SECRET);
        WorkerRegistered honest = RegistrationSignature.signed(
                register("honest", POOL, Map.of("gpu", "h100"), 4), "h100-workers", H100_SECRET);

        scheduler.sendWorkerEventAt(liar, T0).sendWorkerEventAt(honest, T0);
        List<KeyValue<String, SpecificRecord>> registrations = scheduler.assignments();
        List<JournalEntry> journaled = scheduler.journal();
        scheduler.send(submit("t1", POOL, Map.of("gpu", "h100")));

        assertThat(registrations.get(0).key).isEqualTo("liar");
        RegistrationRejected rejected = (RegistrationRejected) registrations.get(0).value;
        assertThat(rejected.getCode()).isEqualTo(RejectionCode.PERMISSION_DENIED);
        assertThat(rejected.getReason()).contains("gpu=h100").contains("a100-workers");
        assertThat(registrations.get(1).key).isEqualTo("honest");
        assertThat(registrations.get(1).value).isInstanceOf(RegistrationAccepted.class);
        assertThat(journaled.get(0).getEvent()).isEqualTo(rejected);
        assertThat(scheduler.worker(POOL, "liar")).isNull();
        assertThat(scheduler.assignments()).extracting(kv -> kv.key).containsOnly("honest")
                .isNotEmpty();
        assertThat(scheduler.task("t1").getAttempts()).extracting(a -> a.getWorkerId()).containsExactly("honest");
    }

    @Test
    void tamperedSignatureIsRefused() {
        WorkerRegistered signed = RegistrationSignature.signed(
                register("w1", POOL, Map.of("gpu", "a100"), 4), "a100-workers", A100_SECRET);
        WorkerRegistered tampered = WorkerRegistered.newBuilder(signed).setSlots(400).build();

        scheduler.sendWorkerEventAt(tampered, T0);

        assertThat(rejection("w1").getReason()).contains("signature does not verify");
        assertThat(scheduler.worker(POOL, "w1")).isNull();
    }

    @Test
    void staleSignatureIsRefusedButAFreshOneStands() {
        WorkerRegistered signed = RegistrationSignature.signed(
                register("w1", POOL, Map.of("gpu", "a100"), 4), "a100-workers", A100_SECRET);

        scheduler.sendWorkerEventAt(signed, T0.plus(Duration.ofMinutes(6)));
        assertThat(rejection("w1").getReason()).contains("stale");

        scheduler.sendWorkerEventAt(signed, T0.plus(Duration.ofMinutes(4)));
        assertThat(scheduler.assignments()).extracting(kv -> kv.value).hasOnlyElementsOfType(RegistrationAccepted.class);
    }

    @Test
    void aCapturedRegistrationReplayedWithinTheWindowIsRefusedAndTheRealWorkerKeepsItsGeneration() {
        WorkerRegistered signed = RegistrationSignature.signed(
                register("w1", POOL, Map.of("gpu", "a100"), 4), "a100-workers", A100_SECRET);
        scheduler.sendWorkerEventAt(signed, T0);
        assertThat(scheduler.assignments()).extracting(kv -> kv.value).hasOnlyElementsOfType(RegistrationAccepted.class);
        scheduler.journal();

        // The same bytes, written again a minute later: within the five-minute window, so the signature still holds.
        scheduler.sendWorkerEventAt(signed, T0.plus(Duration.ofMinutes(1)));

        List<JournalEntry> journaled = scheduler.journal();
        assertThat(journaled).extracting(e -> e.getEvent().getClass().getSimpleName())
                .containsExactly("RegistrationRejected");
        assertThat(((RegistrationRejected) journaled.get(0).getEvent()).getReason())
                .contains("a replay of the last one accepted for this id");
        assertThat(scheduler.assignments()).as("the real worker is not told anything").isEmpty();
        assertThat(scheduler.worker(POOL, "w1").getGeneration()).isEqualTo(1L);

        // A restarted worker signs a new registration: it stands, as generation 2.
        WorkerRegistered restarted = RegistrationSignature.signed(WorkerRegistered.newBuilder(signed)
                .setRegisteredAt(T0.plus(Duration.ofMinutes(2))).setSignature(null).setCredential(null).build(),
                "a100-workers", A100_SECRET);
        scheduler.sendWorkerEventAt(restarted, T0.plus(Duration.ofMinutes(2)));
        assertThat(scheduler.worker(POOL, "w1").getGeneration()).isEqualTo(2L);
    }

    @Test
    void aCredentialBoundToWorkerIdsCannotRegisterAnotherFleetsWorker() {
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("eu-1", POOL, Map.of("zone", "eu"), 2), "eu-workers", EU_SECRET), T0);
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("spare", POOL, Map.of(), 1), "eu-workers", EU_SECRET), T0);
        assertThat(scheduler.assignments()).extracting(kv -> kv.key, kv -> kv.value.getClass().getSimpleName())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("eu-1", "RegistrationAccepted"),
                        org.assertj.core.groups.Tuple.tuple("spare", "RegistrationAccepted"));
        scheduler.journal();

        // The id of a worker of another fleet: refused before it could re-register (and so fence) that worker.
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("us-1", POOL, Map.of("zone", "eu"), 2), "eu-workers", EU_SECRET), T0);

        assertThat(rejection("us-1").getReason())
                .isEqualTo("worker id 'us-1' is not allowed for credential 'eu-workers' (allowed: [eu-*, spare])");
        assertThat(scheduler.worker(POOL, "us-1")).isNull();
    }

    @Test
    void poolNotAllowedIsNamed() {
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("w1", "batch", Map.of(), 4), "a100-workers", A100_SECRET), T0);

        assertThat(rejection("w1").getReason()).contains("pool 'batch' is not allowed");
    }

    @Test
    void viewerCredentialUnsignedAndUnknownCredentialAreRefused() {
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("w1", POOL, Map.of(), 4), "viewer", VIEWER_SECRET), T0);
        assertThat(rejection("w1").getReason()).contains("role viewer");

        scheduler.sendWorkerEventAt(register("w2", POOL, Map.of(), 4), T0);
        assertThat(rejection("w2").getReason()).contains("not signed");

        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("w3", POOL, Map.of(), 4), "nobody", A100_SECRET), T0);
        assertThat(rejection("w3").getReason()).contains("unknown credential 'nobody'");
    }

    @Test
    void workerWithAllowedSubsetOfLabelsIsAccepted() {
        scheduler.sendWorkerEventAt(RegistrationSignature.signed(
                register("w1", POOL, Map.of("zone", "eu"), 4), "a100-workers", A100_SECRET), T0);

        assertThat(scheduler.assignments()).extracting(kv -> kv.value).hasOnlyElementsOfType(RegistrationAccepted.class);
        assertThat(scheduler.worker(POOL, "w1")).isNotNull();
    }

    private RegistrationRejected rejection(String worker) {
        List<KeyValue<String, SpecificRecord>> out = scheduler.assignments();
        assertThat(out).hasSize(1);
        assertThat(out.get(0).key).isEqualTo(worker);
        assertThat(scheduler.journal()).extracting(JournalEntry::getEvent).containsExactly(out.get(0).value);
        return (RegistrationRejected) out.get(0).value;
    }
}
