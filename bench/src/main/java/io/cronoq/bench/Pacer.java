package io.cronoq.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop pacing: item {@code i} is due at {@code start + i / rate} whatever happened to the items
 * before it, and is stamped with that due time, so a slow system shows as latency instead of slowing
 * the load down (no coordinated omission). When the sender falls behind, due items go at once, and
 * the pacer says how late it went: a latency that is the load generator's own lateness (its thread
 * not running, a send that blocked) then tells itself from one that is the system's.
 */
public final class Pacer {

    /** Sends one item. */
    @FunctionalInterface
    public interface Sender {
        /** Sends item {@code index}, stamped {@code stampNanos}. */
        void send(long index, long stampNanos);
    }

    /**
     * How late items went, in nanoseconds: the last one, and the latest of those due from the moment
     * measuring began, with its due time (by {@link System#nanoTime()}; 0 and -1 when none was due then).
     */
    public record Lateness(long lastNanos, long worstNanos, long worstDueNanos) {}

    private Pacer() {}

    /**
     * Sends {@code count} items at {@code perSecond} from {@code startNanos}; returns how late the last item
     * went and the latest of the items due at or after {@code measureFromNanos}.
     */
    public static Lateness run(long firstIndex, long count, double perSecond, long startNanos, long measureFromNanos,
                               Sender sender) {
        double intervalNanos = 1e9 / perSecond;
        long late = 0;
        long worst = 0;
        long worstDue = -1;
        for (long i = 0; i < count; i++) {
            long due = startNanos + (long) (i * intervalNanos);
            long now = System.nanoTime();
            while (now < due) {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            late = now - due;
            if (due >= measureFromNanos && (worstDue < 0 || late > worst)) {
                worst = late;
                worstDue = due;
            }
            sender.send(firstIndex + i, due);
        }
        return new Lateness(late, worst, worstDue);
    }

    /** Sends {@code count} items as fast as possible, each stamped with the moment it is sent. */
    public static void burst(long firstIndex, long count, Sender sender) {
        for (long i = 0; i < count; i++) {
            sender.send(firstIndex + i, System.nanoTime());
        }
    }
}
