package io.cronoq.bench;

/**
 * Counts events and remembers when they arrived: the rate from a start (a drain, timed from the
 * moment the app runs), between the first and the last (a steady load), or over any stretch.
 * Thread-safe.
 */
public final class Window {

    /** Every this many events the arrival time is kept, to tell the rate of any stretch of the run. */
    static final int MARK_EVERY = 1000;

    private long count;
    private long firstNanos;
    private long lastNanos;
    private final java.util.List<Long> marks = new java.util.ArrayList<>();

    /** One event at {@code nanos} ({@link System#nanoTime()}). */
    public synchronized void add(long nanos) {
        if (count == 0) {
            firstNanos = nanos;
        }
        if (count % MARK_EVERY == 0) {
            marks.add(nanos);
        }
        count++;
        lastNanos = nanos;
    }

    /**
     * Events per second from the {@code from}-th event to the {@code to}-th (counting from 0; a
     * {@code from} that is not a multiple of {@link #MARK_EVERY} is rounded down to one, and the last
     * event is always known), or 0 when that stretch is not known.
     */
    public synchronized double perSecondBetween(long from, long to) {
        long start = from / MARK_EVERY * MARK_EVERY;
        long end = to >= count - 1 ? count - 1 : to / MARK_EVERY * MARK_EVERY;
        if (end <= start || start / MARK_EVERY >= marks.size()) {
            return 0;
        }
        long endNanos = end == count - 1 ? lastNanos : marks.get((int) (end / MARK_EVERY));
        long startNanos = marks.get((int) (start / MARK_EVERY));
        return endNanos <= startNanos ? 0 : (end - start) / ((endNanos - startNanos) / 1e9);
    }

    public synchronized long count() {
        return count;
    }

    /** When the first event arrived ({@link System#nanoTime()}), or 0 before it. */
    public synchronized long firstNanos() {
        return firstNanos;
    }

    /** When the last event arrived, or 0 before the first. */
    public synchronized long lastNanos() {
        return lastNanos;
    }

    /** Seconds from the first event to the last. */
    public synchronized double seconds() {
        return count < 2 ? 0 : (lastNanos - firstNanos) / 1e9;
    }

    /** Events per second from {@code startNanos} to the last event, or 0 before any. */
    public synchronized double perSecondSince(long startNanos) {
        return count == 0 || lastNanos <= startNanos ? 0 : count / ((lastNanos - startNanos) / 1e9);
    }

    /** Events per second between the first and the last, or 0 with fewer than two. */
    public synchronized double perSecond() {
        double seconds = seconds();
        return seconds <= 0 ? 0 : (count - 1) / seconds;
    }
}
