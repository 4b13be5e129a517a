package io.cronoq.scheduler.auth;

import io.cronoq.events.RegistrationRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.auth.RegistrationSignature;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.TreeMap;

/**
 * Decides, before the placement policy sees it, whether a worker registration may stand: it must be
 * signed by a configured credential ({@link RegistrationSignature}), recently (its {@code registeredAt}
 * within the window of the record's timestamp — no wall clock), by a worker or admin credential whose
 * pools, worker ids and labels allow every claim. With no credentials configured every registration stands.
 */
public record RegistrationGuard(Credentials credentials, long maxAgeMs) {

    /** A guard that lets every registration through (no credentials configured). */
    public static RegistrationGuard open() {
        return new RegistrationGuard(Credentials.none(), Long.MAX_VALUE);
    }

    /**
     * The rejection of {@code registration} received at {@code recordTimestamp}, or empty when it may
     * stand. The reason names the first pool, worker id or label that is not allowed.
     */
    public Optional<RegistrationRejected> check(WorkerRegistered registration, long recordTimestamp) {
        if (credentials.isEmpty()) {
            return Optional.empty();
        }
        return refusal(registration, recordTimestamp).map(reason -> rejection(registration, reason, recordTimestamp));
    }

    private static RegistrationRejected rejection(WorkerRegistered registration, String reason, long recordTimestamp) {
        return RegistrationRejected.newBuilder()
                .setWorkerId(registration.getWorkerId())
                .setPool(registration.getPool())
                .setCode(RejectionCode.PERMISSION_DENIED)
                .setReason(reason)
                .setAt(Instant.ofEpochMilli(recordTimestamp))
                .build();
    }

    /**
     * The refusal of a registration that does not move forward: with credentials configured, a worker
     * id's registrations must be signed at strictly later times ({@code registeredAt}, which the
     * signature covers), so a captured registration written again within the staleness window is
     * refused instead of taking the id over as a new generation (and fencing the real worker). A
     * restarted worker signs a new registration and is not affected; one whose clock went back
     * must wait until it passes the last accepted time, as the reason says.
     *
     * @param lastAcceptedAt reads the {@code registeredAt} of the id's last accepted registration in the pool (or {@code null}); asked only when credentials are configured
     */
    public Optional<RegistrationRejected> replayed(WorkerRegistered registration, Supplier<Instant> lastAcceptedAt,
                                                   long recordTimestamp) {
        if (credentials.isEmpty()) {
            return Optional.empty(); // nothing is signed, so nothing can be replayed: the store is not read
        }
        Instant lastAccepted = lastAcceptedAt.get();
        if (lastAccepted == null || registration.getRegisteredAt().isAfter(lastAccepted)) {
            return Optional.empty();
        }
        boolean exact = registration.getRegisteredAt().equals(lastAccepted);
        String reason = "registration of worker " + registration.getWorkerId() + " signed at "
                + registration.getRegisteredAt() + " is " + (exact ? "a replay of" : "older than")
                + " the last one accepted for this id (" + lastAccepted + "); registrations of an id must be "
                + "signed at later times: a restarted worker signs a new one (if its clock went back, it must "
                + "pass " + lastAccepted + ")";
        return Optional.of(rejection(registration, reason, recordTimestamp));
    }

    private Optional<String> refusal(WorkerRegistered registration, long recordTimestamp) {
        String name = registration.getCredential();
        if (name == null || registration.getSignature() == null) {
            return Optional.of("registration is not signed; start the worker with a credential (--credential and --token-env)");
        }
        Optional<Credential> found = credentials.byName(name);
        if (found.isEmpty()) {
            return Optional.of("unknown credential '" + name + "'");
        }
        Credential credential = found.get();
        if (!RegistrationSignature.verify(registration, credential.secret())) {
            return Optional.of("signature does not verify under credential '" + name + "'");
        }
        long age = recordTimestamp - registration.getRegisteredAt().toEpochMilli();
        if (Math.abs(age) > maxAgeMs) {
            return Optional.of("signature is stale: signed " + age + " ms before it arrived (window " + maxAgeMs
                    + " ms); check the worker's clock");
        }
        if (credential.role() != Role.WORKER && credential.role() != Role.ADMIN) {
            return Optional.of("credential '" + name + "' has role " + credential.role().configName()
                    + "; registering a worker needs role worker or admin");
        }
        if (!credential.allowsPool(registration.getPool())) {
            return Optional.of("pool '" + registration.getPool() + "' is not allowed for credential '" + name + "'");
        }
        if (!credential.allowsWorkerId(registration.getWorkerId())) {
            return Optional.of("worker id '" + registration.getWorkerId() + "' is not allowed for credential '" + name
                    + "' (allowed: " + credential.workerIds() + ")");
        }
        Map<String, String> labels = new TreeMap<>(registration.getLabels());
        for (Map.Entry<String, String> label : labels.entrySet()) {
            if (!credential.allowsLabel(label.getKey(), label.getValue())) {
                return Optional.of("label " + label.getKey() + "=" + label.getValue() + " is not allowed for credential '"
                        + name + "' (allowed: " + new java.util.TreeSet<>(credential.labels()) + ")");
            }
        }
        return Optional.empty();
    }
}
