package io.cronoq.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
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

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);
    /** Per second of the recorder's clock (seconds since it was made): the worst latency recorded in it. */
    private final Map<Long, Long> worstBySecond = new TreeMap<>();
    private final long startNanos = System.nanoTime();
    private final long startEpochMillis = System.currentTimeMillis();

    /** Records one latency given in nanoseconds; a negative one (clock skew) counts as zero. */
    public synchronized void recordNanos(long nanos) {
        long micros = Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000));
        histogram.recordValue(micros);
        worstBySecond.merge((System.nanoTime() - startNanos) / 1_000_000_000L, micros, Math::max);
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
        return new Summary(histogram.getTotalCount(), millis(histogram.getValueAtPercentile(50)),
                millis(histogram.getValueAtPercentile(90)), millis(histogram.getValueAtPercentile(99)),
                millis(histogram.getMaxValue()), worstBySecond.size(), slow.size(), worstSecond, slow,
                java.time.Instant.ofEpochMilli(startEpochMillis + first * 1000).toString());
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /**
     * Percentiles in milliseconds of {@code count} latencies; of the {@code seconds} seconds that recorded any,
     * {@code slowSeconds} had one over 250 ms, and the worst latency was recorded {@code worstAtSecond} seconds
     * after the first sample; {@code slowAt} gives each slow second (seconds after the first sample's) with its
     * worst latency in milliseconds, and {@code firstSecond} is when the first sample's second began by the wall
     * clock (ISO-8601), so a stall can be matched with the logs.
     */
    public record Summary(long count, double p50, double p90, double p99, double max, long seconds, long slowSeconds,
                          long worstAtSecond, Map<Long, Double> slowAt, String firstSecond) {}
}
