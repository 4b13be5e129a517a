package io.cronoq.ops.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Samples this JVM's CPU time every 50 ms, so the CPU spent between two moments of a phase (e.g. the
 * first and the last output of a drain) can be read afterwards: the cost of one task or record in
 * CPU, the figure that bounds throughput on a machine with few cores. In-JVM runs only: it counts
 * every thread of this process (broker, scheduler, load generators, simulated workers).
 */
public final class CpuSampler implements AutoCloseable {

    private record Sample(long nanos, long cpuNanos) {}

    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private CpuSampler() {
        thread = new Thread(this::loop, "bench-cpu-sampler");
        thread.setDaemon(true);
    }

    /** Starts sampling; returns null where the JVM does not report its CPU time. */
    public static CpuSampler start() {
        if (cpuNanos() < 0) {
            return null;
        }
        CpuSampler sampler = new CpuSampler();
        sampler.thread.start();
        return sampler;
    }

    private void loop() {
        while (running) {
            synchronized (samples) {
                samples.add(new Sample(System.nanoTime(), cpuNanos()));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** CPU seconds this process spent between two {@link System#nanoTime()} moments (to the nearest sample). */
    public double cpuSecondsBetween(long fromNanos, long toNanos) {
        synchronized (samples) {
            return (at(toNanos) - at(fromNanos)) / 1e9;
        }
    }

    private long at(long nanos) {
        Sample best = samples.get(0);
        for (Sample s : samples) {
            if (Math.abs(s.nanos() - nanos) < Math.abs(best.nanos() - nanos)) {
                best = s;
            }
        }
        return best.cpuNanos();
    }

    private static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
