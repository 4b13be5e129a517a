package io.cronoq.bench;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * A latency recorder (HdrHistogram, microseconds, 3 significant digits, up to 10 minutes), safe to
 * record into from one thread while another takes summaries. It also keeps the worst latency of each
 * second of recording, so that a tail made of a few stalls tells itself from a tail spread over the run.
 */
public final class Latency {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);
    /** A second whose worst latency passes this is counted as a slow second. */
    static final long SLOW_MICROS = 250_000;
    /** The length of the windows whose p99s show whether a tail is spread over the run or gathers at one time. */
    static final long WINDOW_S = 10;

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);
    /** Per second of the recorder's clock (seconds since it was made): the worst latency recorded in it. */
    private final Map<Long, Long> worstBySecond = new TreeMap<>();
    /** Per second of the recorder's clock: the latencies recorded in it, for the p99 of each 10 s window. */
    private final Map<Long, Histogram> bySecond = new TreeMap<>();
    private final LongSupplier nanoClock;
    private final long startNanos;
    private final long startEpochMillis = System.currentTimeMillis();

    /** A recorder whose seconds are the JVM's. */
    public Latency() {
        this(System::nanoTime);
    }

    /** A recorder whose seconds are read from {@code nanoClock}, a monotonic clock in nanoseconds. */
    Latency(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.startNanos = nanoClock.getAsLong();
    }

    /** Records one latency given in nanoseconds; a negative one (clock skew) counts as zero. */
    public synchronized void recordNanos(long nanos) {
        long micros = Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000));
        histogram.recordValue(micros);
        long second = (nanoClock.getAsLong() - startNanos) / 1_000_000_000L;
        worstBySecond.merge(second, micros, Math::max);
        bySecond.computeIfAbsent(second, s -> new Histogram(HIGHEST_MICROS, 2)).recordValue(micros);
    }

    /** The figures so far. */
    public synchronized Summary summary() {
        long first = worstBySecond.isEmpty() ? 0 : worstBySecond.keySet().iterator().next();
        long worstSecond = -1;
        long worst = -1;
        Map<Long, Double> slow = new TreeMap<>();
        for (Map.Entry<Long, Long> e : worstBySecond.entrySet()) {
            long second = e.getKey() - first;
            if (e.getValue() > worst) {
                worst = e.getValue();
                worstSecond = second;
            }
            if (e.getValue() > SLOW_MICROS) {
                slow.put(second, millis(e.getValue()));
            }
        }
        Map<Long, Histogram> windows = new TreeMap<>();
        bySecond.forEach((second, h) -> windows.computeIfAbsent((second - first) / WINDOW_S,
                w -> new Histogram(HIGHEST_MICROS, 2)).add(h));
        List<Double> p99ByWindow = windows.values().stream()
                .map(h -> millis(h.getValueAtPercentile(99))).toList();
        return new Summary(histogram.getTotalCount(), millis(histogram.getValueAtPercentile(50)),
                millis(histogram.getValueAtPercentile(90)), millis(histogram.getValueAtPercentile(99)),
                millis(histogram.getMaxValue()), worstBySecond.size(), slow.size(), worstSecond, slow,
                java.time.Instant.ofEpochMilli(startEpochMillis + first * 1000).toString(), p99ByWindow);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /**
     * Percentiles in milliseconds of {@code count} latencies; of the {@code seconds} seconds that recorded any,
     * {@code slowSeconds} had one over 250 ms, and the worst latency was recorded {@code worstAtSecond} seconds
     * after the first sample; {@code slowAt} gives each slow second (seconds after the first sample's) with its
     * worst latency in milliseconds, and {@code firstSecond} is when the first sample's second began by the wall
     * clock (ISO-8601), so a stall can be matched with the logs; {@code p99ByWindow} is the p99 of each 10 s
     * from the first sample's second on (two significant digits), the last window possibly shorter.
     */
    public record Summary(long count, double p50, double p90, double p99, double max, long seconds, long slowSeconds,
                          long worstAtSecond, Map<Long, Double> slowAt, String firstSecond,
                          List<Double> p99ByWindow) {}
}
