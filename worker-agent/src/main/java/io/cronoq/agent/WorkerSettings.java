package io.cronoq.agent;

import io.cronoq.schemas.rules.Rules;
import io.cronoq.schemas.rules.Violation;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Who a worker is and how it paces itself: id, pool, labels, slots, heartbeat interval, how long
 * {@link CronoqWorker#start()} waits for the scheduler's answer and how long each attempt's start report is held
 * back, the credential (may be null) that signs its registrations, and the address it advertises to the members of
 * the gangs it runs (may be null). Validated with cronoq's shared input rules.
 */
record WorkerSettings(String id, String pool, Map<String, String> labels, int slots, Duration heartbeatInterval,
                      Duration registrationTimeout, Duration startReportDelay, WorkerCredential credential,
                      String address) {

    /** Settings that advertise the host's name ({@link WorkerAddress#local}). */
    WorkerSettings(String id, String pool, Map<String, String> labels, int slots, Duration heartbeatInterval,
                   Duration registrationTimeout, Duration startReportDelay, WorkerCredential credential) {
        this(id, pool, labels, slots, heartbeatInterval, registrationTimeout, startReportDelay, credential,
                WorkerAddress.local());
    }

    /**
     * How long an attempt's start report is held back unless set otherwise: a few times what a trivial task takes,
     * far below any lease.
     */
    static final Duration DEFAULT_START_REPORT_DELAY = Duration.ofMillis(20);

    /** Settings with the default start report delay. */
    WorkerSettings(String id, String pool, Map<String, String> labels, int slots, Duration heartbeatInterval,
                   Duration registrationTimeout, WorkerCredential credential) {
        this(id, pool, labels, slots, heartbeatInterval, registrationTimeout, DEFAULT_START_REPORT_DELAY, credential);
    }

    /**
     * Settings with the default start report delay and without a credential: registrations go unsigned (a
     * scheduler with no tokens configured).
     */
    WorkerSettings(String id, String pool, Map<String, String> labels, int slots, Duration heartbeatInterval,
                   Duration registrationTimeout) {
        this(id, pool, labels, slots, heartbeatInterval, registrationTimeout, null);
    }

    WorkerSettings {
        labels = java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(registrationTimeout, "registrationTimeout");
        Objects.requireNonNull(startReportDelay, "startReportDelay");
        Optional<Violation> broken = Violation.first(Rules.workerId(id), Rules.pool(pool), Rules.labels(labels),
                Rules.slots(slots), WorkerAddress.check("address", address));
        if (broken.isPresent()) {
            throw broken.get().toException();
        }
        if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
            throw new IllegalArgumentException("heartbeatInterval is " + heartbeatInterval + "; it must be positive");
        }
        if (startReportDelay.isNegative()) {
            throw new IllegalArgumentException("startReportDelay is " + startReportDelay
                    + "; it must not be negative (0 sends each start report at once)");
        }
    }

}
