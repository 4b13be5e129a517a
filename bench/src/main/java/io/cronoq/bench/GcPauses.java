package io.cronoq.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * This JVM's garbage-collection pauses, recorded as each ends, so a measured part can say how many fell in
 * its seconds and how long the longest took. In an in-JVM run every thread waits a pause out (the embedded
 * broker, the scheduler, the load generator and the workers alike), so a pause over the collector's goal
 * shows in the latency tail as it is. The beans that time whole concurrent cycles (ZGC's and Shenandoah's
 * "Cycles") are left out: their pauses are reported by their "Pauses" beans. G1's "Concurrent GC" bean (Java 20
 * and later) reports the remark and cleanup pauses, and counts; on Java 17 no bean reports those two.
 */
public final class GcPauses implements AutoCloseable {

    /** The pause goal the launcher gives G1 ({@code -XX:MaxGCPauseMillis=20}): pauses over it are counted apart. */
    static final double GOAL_MS = 20;

    /** Pauses as (end in {@link System#nanoTime()}, duration in microseconds), in the order they ended. */
    private final List<long[]> pauses = new ArrayList<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onNotification;
    private final long nanosAtStart;
    private final long uptimeMsAtStart;

    private GcPauses(long nanosAtStart, long uptimeMsAtStart) {
        this.nanosAtStart = nanosAtStart;
        this.uptimeMsAtStart = uptimeMsAtStart;
    }

    /** Starts recording every pausing collector's collections from now on. */
    public static GcPauses start() {
        GcPauses gc = new GcPauses(System.nanoTime(), ManagementFactory.getRuntimeMXBean().getUptime());
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter && pauses(bean.getName())) {
                emitter.addNotificationListener(gc.listener, null, null);
                gc.emitters.add(emitter);
            }
        }
        return gc;
    }

    /** A recorder fed by {@link #record} alone, with the JVM's uptime {@code uptimeMsAtStart} at {@code nanosAtStart}. */
    static GcPauses unattached(long nanosAtStart, long uptimeMsAtStart) {
        return new GcPauses(nanosAtStart, uptimeMsAtStart);
    }

    /** Whether a collector bean of this name reports pauses, rather than whole concurrent cycles. */
    static boolean pauses(String collectorName) {
        return !collectorName.toLowerCase(Locale.ROOT).contains("cycles");
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        var info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        record(info.getGcInfo().getEndTime(), info.getGcInfo().getDuration());
    }

    /** Records one pause that ended at {@code endUptimeMs} (the JVM's uptime) and lasted {@code durationMs}. */
    synchronized void record(long endUptimeMs, long durationMs) {
        long endNanos = nanosAtStart + TimeUnit.MILLISECONDS.toNanos(endUptimeMs - uptimeMsAtStart);
        pauses.add(new long[] {endNanos, TimeUnit.MILLISECONDS.toMicros(durationMs)});
    }

    /** The pauses that ended within {@code seconds} from a {@link System#nanoTime()} moment (a measured part). */
    public synchronized Summary over(long fromNanos, int seconds) {
        long toNanos = fromNanos + TimeUnit.SECONDS.toNanos(seconds);
        int count = 0;
        int overGoal = 0;
        long totalMicros = 0;
        long longestMicros = 0;
        for (long[] pause : pauses) {
            if (pause[0] < fromNanos || pause[0] >= toNanos) {
                continue;
            }
            count++;
            totalMicros += pause[1];
            longestMicros = Math.max(longestMicros, pause[1]);
            if (pause[1] > GOAL_MS * 1000) {
                overGoal++;
            }
        }
        return new Summary(count, totalMicros / 1000.0, longestMicros / 1000.0, overGoal);
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                // already gone: nothing to undo
            }
        }
        emitters.clear();
    }

    /**
     * The pauses of a measured part: how many, their time in all and the longest in milliseconds, and how many
     * took longer than {@link #GOAL_MS}.
     */
    public record Summary(int count, double totalMs, double longestMs, int overGoal) {}
}
