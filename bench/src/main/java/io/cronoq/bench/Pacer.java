package io.cronoq.bench;

import java.util.concurrent.locks.LockSupport;

/**
 * Open-loop pacing: item {@code i} is due at {@code start + i / rate} whatever happened to the items
 * before it, and is stamped with that due time, so a slow system shows as latency instead of slowing
 * the load down (no coordinated omission). When the sender falls behind, due items go at once.
 */
public final class Pacer {

    /** Sends one item. */
    @FunctionalInterface
    public interface Sender {
        /** Sends item {@code index}, stamped {@code stampNanos}. */
        void send(long index, long stampNanos);
    }

    private Pacer() {}

    /**
     * Sends {@code count} items at {@code perSecond} from {@code startNanos}; returns how far behind
     * schedule the last one went, in ns (0 when on time).
     */
    public static long run(long firstIndex, long count, double perSecond, long startNanos, Sender sender) {
        double intervalNanos = 1e9 / perSecond;
        long lag = 0;
        for (long i = 0; i < count; i++) {
            long due = startNanos + (long) (i * intervalNanos);
            long now = System.nanoTime();
            while (now < due) {
                LockSupport.parkNanos(due - now);
                now = System.nanoTime();
            }
            lag = now - due;
            sender.send(firstIndex + i, due);
        }
        return lag;
    }

    /** Sends {@code count} items as fast as possible, each stamped with the moment it is sent. */
    public static void burst(long firstIndex, long count, Sender sender) {
        for (long i = 0; i < count; i++) {
            sender.send(firstIndex + i, System.nanoTime());
        }
    }
}
