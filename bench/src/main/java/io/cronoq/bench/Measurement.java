package io.cronoq.bench;

/**
 * The counters of one measured phase of a fleet: the latency and the arrival of every assignment of a
 * task stamped at or after {@code fromNanos}.
 */
final class Measurement {

    private final long fromNanos;
    private final Latency latency = new Latency();
    private final Window placements = new Window();

    Measurement(long fromNanos) {
        this.fromNanos = fromNanos;
    }

    /** An assignment of a task stamped {@code stampNanos} reached its worker at {@code atNanos}. */
    void record(long stampNanos, long atNanos) {
        if (stampNanos >= fromNanos) {
            latency.recordNanos(atNanos - stampNanos);
            placements.add(atNanos);
        }
    }

    Latency latency() {
        return latency;
    }

    Window placements() {
        return placements;
    }
}
