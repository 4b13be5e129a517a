package io.cronoq.bench;

/**
 * The counters of one measured phase of a fleet: the latency and the arrival of every assignment of a
 * task stamped at or after {@code fromNanos}.
 */
final class Measurement {

    private final long fromNanos;
    private final Latency latency = new Latency();
    private final Window placements = new Window();
    private final Hops hops;

    /** Measures tasks stamped at or after {@code fromNanos}; {@code hops}, when not null, takes their hops. */
    Measurement(long fromNanos, Hops hops) {
        this.fromNanos = fromNanos;
        this.hops = hops;
    }

    /** An assignment of a task stamped {@code stampNanos} reached its worker at {@code atNanos}. */
    void record(long stampNanos, long atNanos) {
        if (stampNanos >= fromNanos) {
            latency.recordNanos(atNanos - stampNanos);
            placements.add(atNanos);
        }
    }

    /**
     * The assignment of task {@code taskId} stamped {@code stampNanos} and appended at {@code appendedEpochMs}
     * (negative when unknown) reached its worker at {@code atNanos}.
     */
    void hops(String taskId, long stampNanos, long appendedEpochMs, long atNanos) {
        if (hops != null && stampNanos >= fromNanos) {
            hops.assigned(taskId, stampNanos, appendedEpochMs, atNanos);
        }
    }

    Latency latency() {
        return latency;
    }

    Window placements() {
        return placements;
    }
}
