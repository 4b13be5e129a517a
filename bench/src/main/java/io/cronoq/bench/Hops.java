package io.cronoq.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.ToLongFunction;

/**
 * Where the time of each measured task went, hop by hop, between the moment it was due and the moment its
 * assignment reached its worker, so a slow tail names the hop it sat in. Four moments split a task's latency:
 * the producer's acknowledgement of its submission (the broker appended it), the moment the scheduler heard the
 * input that assigned it (the journal's {@code heardAt}: the stream thread's clock as it processed the
 * submission, or the completion that freed a slot), the broker's append of the assignment record (its timestamp,
 * when its topic stamps records at append: {@code message.timestamp.type=LogAppendTime}), and the assignment's
 * arrival. The two middle moments are wall-clock milliseconds, mapped onto {@link System#nanoTime()} by one
 * reading of both clocks: a hop may be off by a millisecond. Without append times the last two hops are one.
 *
 * <p>Tasks are numbered as the load generator sends them; this covers {@code count} of them from {@code first}.
 * Acknowledgements and arrivals may be recorded from any thread; {@link #summary()} is taken once all arrived.
 */
public final class Hops {

    /** The hops, in the order a task passes them. */
    public enum Hop {
        SENT("sent"), INTO_SCHEDULER("into the scheduler"), OUT_TO_LOG("out to the log"), COMMITTED_AND_READ("committed and read");

        private final String label;

        Hop(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    private static final long NONE = Long.MIN_VALUE;

    private final long first;
    private final int count;
    private final ToLongFunction<String> indexOf;
    /** nanoTime minus the wall clock in nanoseconds, read once: maps a wall-clock millisecond onto nanoTime. */
    private final long wallToNanos;
    private final AtomicLongArray due;
    private final AtomicLongArray acked;
    private final AtomicLongArray heard;
    private final AtomicLongArray appended;
    private final AtomicLongArray received;

    /**
     * @param first   the number of the first measured task
     * @param count   how many tasks are measured
     * @param indexOf a task's number from its id (negative for a task the load generator did not number)
     */
    Hops(long first, int count, ToLongFunction<String> indexOf) {
        this(first, count, indexOf, System.nanoTime() - epochNanos(Instant.now()));
    }

    Hops(long first, int count, ToLongFunction<String> indexOf, long wallToNanos) {
        this.first = first;
        this.count = count;
        this.indexOf = indexOf;
        this.wallToNanos = wallToNanos;
        this.due = filled(count);
        this.acked = filled(count);
        this.heard = filled(count);
        this.appended = filled(count);
        this.received = filled(count);
    }

    private static AtomicLongArray filled(int count) {
        AtomicLongArray array = new AtomicLongArray(count);
        for (int i = 0; i < count; i++) {
            array.set(i, NONE);
        }
        return array;
    }

    private static long epochNanos(Instant at) {
        return at.getEpochSecond() * 1_000_000_000L + at.getNano();
    }

    /** The broker acknowledged task {@code index}'s submission at {@code nanos}. */
    void acked(long index, long nanos) {
        int slot = slot(index);
        if (slot >= 0) {
            acked.set(slot, nanos);
        }
    }

    /**
     * The scheduler heard the input that assigned task {@code taskId} at {@code heardAtEpochMs} (its journal says so).
     * Only the first assignment of a task counts.
     */
    void heard(String taskId, long heardAtEpochMs) {
        int slot = slot(indexOf.applyAsLong(taskId));
        if (slot >= 0) {
            heard.compareAndSet(slot, NONE, wallMillisToNanos(heardAtEpochMs));
        }
    }

    /**
     * The assignment of task {@code taskId}, due at {@code dueNanos} and appended at {@code appendedEpochMs} (negative
     * when unknown), reached its worker at {@code receivedNanos}. Only the first assignment of a task counts.
     */
    void assigned(String taskId, long dueNanos, long appendedEpochMs, long receivedNanos) {
        int slot = slot(indexOf.applyAsLong(taskId));
        if (slot < 0 || !received.compareAndSet(slot, NONE, receivedNanos)) {
            return;
        }
        due.set(slot, dueNanos);
        appended.set(slot, appendedEpochMs < 0 ? NONE : wallMillisToNanos(appendedEpochMs));
    }

    private long wallMillisToNanos(long epochMs) {
        return epochMs * 1_000_000L + wallToNanos;
    }

    private int slot(long index) {
        long slot = index - first;
        return index < 0 || slot < 0 || slot >= count ? -1 : (int) slot;
    }

    /** The hops of every measured task that was acknowledged, heard and assigned. */
    Summary summary() {
        boolean split = true;
        List<Integer> known = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (received.get(i) != NONE && acked.get(i) != NONE && heard.get(i) != NONE) {
                known.add(i);
                split &= appended.get(i) != NONE;
            }
        }
        if (known.isEmpty()) {
            return new Summary(0, split, Map.of(), 0, Map.of(), 0, null, Map.of());
        }
        List<Timed> tasks = new ArrayList<>(known.size());
        for (int i : known) {
            tasks.add(timed(i, split));
        }
        List<Hop> measured = split ? List.of(Hop.values())
                : List.of(Hop.SENT, Hop.INTO_SCHEDULER, Hop.COMMITTED_AND_READ);
        Map<Hop, Percentiles> percentiles = new EnumMap<>(Hop.class);
        for (Hop hop : measured) {
            long[] values = tasks.stream().mapToLong(t -> Math.max(0, t.hops()[hop.ordinal()])).sorted().toArray();
            percentiles.put(hop, new Percentiles(millis(at(values, 0.50)), millis(at(values, 0.99)),
                    millis(values[values.length - 1])));
        }
        // The slowest 1% by latency (at least one task), and the hops of an average one of them.
        tasks.sort(Comparator.comparingLong(Timed::latencyNanos).reversed());
        List<Timed> tail = tasks.subList(0, Math.max(1, tasks.size() / 100));
        Timed slowest = tasks.get(0);
        Map<Hop, Double> tailMean = new EnumMap<>(Hop.class);
        Map<Hop, Double> worst = new EnumMap<>(Hop.class);
        for (Hop hop : measured) {
            tailMean.put(hop, millis((long) tail.stream().mapToLong(t -> t.hops()[hop.ordinal()]).average().orElse(0)));
            worst.put(hop, millis(slowest.hops()[hop.ordinal()]));
        }
        String slowestDue = Instant.ofEpochSecond(0, slowest.dueNanos() - wallToNanos).toString();
        return new Summary(tasks.size(), split, percentiles, millis(tail.get(tail.size() - 1).latencyNanos()), tailMean,
                millis(slowest.latencyNanos()), slowestDue, worst);
    }

    /**
     * Task {@code slot}'s due time, latency and hops in nanoseconds (by {@link Hop#ordinal()}); without append
     * times ({@code split} false) the last hop runs from the moment it was heard and {@link Hop#OUT_TO_LOG} is none.
     */
    private Timed timed(int slot, boolean split) {
        long due = this.due.get(slot);
        long acked = this.acked.get(slot);
        long heard = this.heard.get(slot);
        long received = this.received.get(slot);
        long[] hops = split
                ? new long[] {acked - due, heard - acked, appended.get(slot) - heard, received - appended.get(slot)}
                : new long[] {acked - due, heard - acked, NONE, received - heard};
        return new Timed(due, received - due, hops);
    }

    private record Timed(long dueNanos, long latencyNanos, long[] hops) {}

    /** The value at quantile {@code q} of sorted {@code values}: the smallest that at least that share is at or under. */
    private static long at(long[] values, double q) {
        int rank = (int) Math.ceil(q * values.length);
        return values[Math.max(0, rank - 1)];
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    /** A hop's p50, p99 and longest, in milliseconds (a negative hop, from the clocks' millisecond, counts as 0). */
    public record Percentiles(double p50, double p99, double max) {}

    /**
     * The hops of {@code tasks} measured tasks: each hop's percentiles ({@code split} false when the assignments'
     * append times were not known, so {@link Hop#OUT_TO_LOG} is missing and {@link Hop#COMMITTED_AND_READ} holds
     * both); the average hops of the slowest 1% of the tasks, whose latency reached {@code tailFromMs}; and the slowest task's
     * latency, when it was due (ISO-8601) and its hops. All in milliseconds.
     */
    public record Summary(int tasks, boolean split, Map<Hop, Percentiles> percentiles, double tailFromMs,
                   Map<Hop, Double> tailMeanMs, double slowestMs, String slowestDue, Map<Hop, Double> slowestHopsMs) {}
}
