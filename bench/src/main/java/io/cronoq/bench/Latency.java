package io.cronoq.bench;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * A latency recorder (HdrHistogram, microseconds, 3 significant digits, up to 10 minutes), safe to
 * record into from one thread while another takes summaries.
 */
public final class Latency {

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);

    /** Records one latency given in nanoseconds; a negative one (clock skew) counts as zero. */
    public synchronized void recordNanos(long nanos) {
        histogram.recordValue(Math.min(HIGHEST_MICROS, Math.max(0, nanos / 1_000)));
    }

    /** The figures so far. */
    public synchronized Summary summary() {
        return new Summary(histogram.getTotalCount(), millis(histogram.getValueAtPercentile(50)),
                millis(histogram.getValueAtPercentile(90)), millis(histogram.getValueAtPercentile(99)),
                millis(histogram.getMaxValue()));
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }

    /** Percentiles in milliseconds of {@code count} latencies. */
    public record Summary(long count, double p50, double p90, double p99, double max) {}
}
