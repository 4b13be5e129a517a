package io.cronoq.agent;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The reports (Attempt* events) a worker published that the broker has not acknowledged yet, so that a drained
 * worker can leave after them. Safe from any thread.
 */
final class ReportsInFlight {

    /** How long a drained worker waits for the broker to take its last reports before it leaves anyway. */
    static final int WAIT_SECONDS = 10;

    private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

    /** Keeps a published report in flight until the broker acknowledges (or refuses) it. */
    void track(CompletableFuture<Void> sent) {
        pending.add(sent);
        sent.whenComplete((ok, error) -> pending.remove(sent));
    }

    /**
     * Completes once every report in flight now has been answered by the broker, or exceptionally after
     * {@value #WAIT_SECONDS} s.
     */
    CompletableFuture<Void> answered() {
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .orTimeout(WAIT_SECONDS, TimeUnit.SECONDS);
    }
}
