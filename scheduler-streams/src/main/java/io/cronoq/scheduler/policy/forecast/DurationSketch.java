package io.cronoq.scheduler.policy.forecast;

/**
 * Recent run times of one kind of task, in a fixed few kilobytes: a histogram over buckets that grow
 * by 10% (from 1 ms to about 40 days), whose weights halve every {@code halfLifeMs} of the time the
 * observations carry, so what ran lately counts most. Not thread-safe; {@link RunTimes} guards it.
 */
final class DurationSketch {

    /** Each bucket spans [GROWTH^i, GROWTH^(i+1)) milliseconds. */
    static final double GROWTH = 1.1;
    static final int BUCKETS = 300;
    private static final double LOG_GROWTH = Math.log(GROWTH);

    private final long halfLifeMs;
    private final double[] weights = new double[BUCKETS];
    /** Per bucket, the weighted sum of the run times in it: what a draw from the bucket gives is their mean. */
    private final double[] sums = new double[BUCKETS];
    private long count;
    private long lastAt = Long.MIN_VALUE;

    DurationSketch(long halfLifeMs) {
        this.halfLifeMs = halfLifeMs;
    }

    /** Counts one run of {@code durationMs} that ended at {@code atMillis}. */
    void add(long durationMs, long atMillis) {
        decayTo(atMillis);
        int bucket = bucket(durationMs);
        weights[bucket] += 1;
        sums[bucket] += durationMs;
        count++;
    }

    /** An immutable copy to draw from, weighted as at the last observation. */
    Durations snapshot() {
        double[] cumulative = new double[BUCKETS];
        double[] means = new double[BUCKETS];
        double sum = 0;
        for (int i = 0; i < BUCKETS; i++) {
            sum += weights[i];
            cumulative[i] = sum;
            means[i] = weights[i] > 0 ? sums[i] / weights[i] : 0;
        }
        return new Durations(cumulative, means, count, meanError(means, sum));
    }

    /**
     * How uncertain the mean run time is, relative to it: the coefficient of variation of the runs over
     * the square root of their decayed weight (the standard error of a mean, as a share of it).
     */
    private double meanError(double[] means, double weight) {
        if (weight <= 0) {
            return 0;
        }
        double mean = 0;
        for (int i = 0; i < BUCKETS; i++) {
            mean += weights[i] * means[i];
        }
        mean /= weight;
        if (mean <= 0) {
            return 0;
        }
        double variance = 0;
        for (int i = 0; i < BUCKETS; i++) {
            variance += weights[i] * (means[i] - mean) * (means[i] - mean);
        }
        variance /= weight;
        return Math.sqrt(variance) / mean / Math.sqrt(Math.max(1, weight));
    }

    private void decayTo(long atMillis) {
        if (lastAt != Long.MIN_VALUE && atMillis > lastAt) {
            double factor = Math.pow(0.5, (double) (atMillis - lastAt) / halfLifeMs);
            if (factor < 0.999_999) {
                for (int i = 0; i < BUCKETS; i++) {
                    weights[i] *= factor;
                    sums[i] *= factor;
                }
            }
        }
        if (atMillis > lastAt) {
            lastAt = atMillis;
        }
    }

    static int bucket(long durationMs) {
        if (durationMs <= 1) {
            return 0;
        }
        return (int) Math.min(BUCKETS - 1, Math.floor(Math.log(durationMs) / LOG_GROWTH));
    }

    static double lowerBound(int bucket) {
        return bucket == 0 ? 0 : Math.pow(GROWTH, bucket);
    }

    /**
     * A frozen distribution of run times to draw from. A draw picks a bucket by weight and gives the
     * mean of the runs seen in it (so runs that all took one time are drawn exactly); a conditional
     * draw keeps only times above a floor (a running attempt's age).
     */
    static final class Durations {
        private final double[] cumulative;
        private final double[] means;
        private final long count;
        private final double meanError;

        private Durations(double[] cumulative, double[] means, long count, double meanError) {
            this.cumulative = cumulative;
            this.means = means;
            this.count = count;
            this.meanError = meanError;
        }

        /**
         * How far the true mean run time may be from the runs seen, as a share of it (their standard error):
         * a forecast's futures each scale their draws by a factor of about this spread, so that what a few
         * runs cannot tell shows in the interval.
         */
        double meanError() {
            return meanError;
        }

        /** The runs seen, however old. */
        long count() {
            return count;
        }

        /** The decayed weight: about how many recent runs it rests on. */
        double weight() {
            return cumulative[BUCKETS - 1];
        }

        /**
         * A run time drawn from the part of it above {@code floorMs} (the age of a running attempt), or
         * {@code -1} when nothing seen ran that long.
         */
        long drawAbove(long floorMs, double u) {
            double total = weight();
            if (total <= 0) {
                return -1;
            }
            int floorBucket = floorMs <= 0 ? 0 : bucket(floorMs);
            double below = floorBucket == 0 ? 0 : cumulative[floorBucket - 1];
            double inFloor = cumulative[floorBucket] - below;
            // Of the floor's own bucket, only the part above the floor counts.
            double lo = lowerBound(floorBucket);
            double hi = lowerBound(floorBucket + 1);
            double keptShare = floorMs <= lo ? 1 : Math.max(0, (hi - floorMs) / (hi - lo));
            double start = below + inFloor * (1 - keptShare);
            double mass = total - start;
            if (mass <= 1e-9) {
                return -1;
            }
            double target = start + u * mass;
            int b = firstAbove(target);
            if (b == floorBucket && floorMs > lo) {
                // In the floor's own bucket: somewhere between the floor and the bucket's end, as far in as drawn.
                double share = Math.min(1, Math.max(0, (target - start) / Math.max(1e-12, inFloor * keptShare)));
                return Math.round(floorMs + share * (hi - floorMs));
            }
            return Math.max(floorMs, Math.round(means[b]));
        }

        /** The first bucket whose cumulative weight exceeds {@code target} (the last when none does). */
        private int firstAbove(double target) {
            int lo = 0;
            int hi = BUCKETS - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cumulative[mid] > target) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }

        /** The run time below which a share {@code q} of the weight lies (bucket resolution). */
        long quantile(double q) {
            double total = weight();
            if (total <= 0) {
                return -1;
            }
            return Math.round(means[firstAbove(q * total)]);
        }
    }
}
