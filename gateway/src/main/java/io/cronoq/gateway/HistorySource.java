package io.cronoq.gateway;

import java.time.Instant;
import java.util.Optional;

/**
 * The recent per-minute history of pools that {@code GET /v1/history} serves: empty for a pool it
 * knows nothing of, {@link ApiException} {@code UNAVAILABLE} while it is still being built.
 */
public interface HistorySource {

    /** A source that knows no pool (a gateway under test that reads no journal). */
    HistorySource NONE = (pool, minutes, now) -> Optional.empty();

    /** The last {@code minutes} minutes of {@code pool} up to {@code now}, oldest first. */
    Optional<HistoryView> history(String pool, int minutes, Instant now);
}
