package io.cronoq.scheduler.policy.limits;

import io.cronoq.events.RateBucket;
import java.util.LinkedHashSet;

/**
 * A rate limit of a pool, defined by an admin ({@link #bucket}) or only named by waiting tasks: its
 * bucket's units at any time of the decision clock, and when it will hold what a task takes.
 */
final class RateLimit<L extends Line> {

    final String name;
    /** Its bucket, or {@code null} while no admin defined it. */
    RateBucket bucket;
    /** Lines with waiting tasks that name it. */
    final LinkedHashSet<L> lines = new LinkedHashSet<>();
    /** When the first line it holds back may be admitted (a tick looks then); {@link Long#MAX_VALUE}: never by itself. */
    long due = Long.MAX_VALUE;

    RateLimit(String name) {
        this.name = name;
    }

    /** Units in the bucket at {@code now}: what it held at its last change plus the refill since, at most its burst. */
    double available(long now) {
        RateBucket b = bucket;
        long since = Math.max(0, now - b.getAt().toEpochMilli());
        return Math.min(b.getBurst(), b.getUnits() + b.getPerSecond() * since / 1000.0);
    }

    /** When the bucket holds {@code units}, or {@link Long#MAX_VALUE} when it never will (undefined, or above its burst). */
    long dueFor(int units) {
        RateBucket b = bucket;
        if (b == null || units > b.getBurst()) {
            return Long.MAX_VALUE;
        }
        long at = b.getAt().toEpochMilli();
        long due = at + Math.max(0, (long) Math.ceil((units - b.getUnits()) * 1000.0 / b.getPerSecond()));
        for (int i = 0; i < 1000 && available(due) < units; i++) {
            due++; // rounding: the first millisecond at which the bucket really holds them
        }
        return due;
    }
}
