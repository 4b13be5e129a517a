package io.cronoq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * Samples this JVM's CPU time every 50 ms, so the CPU spent between two moments of a phase (e.g. the
 * first and the last output of a drain) can be read afterwards: the cost of one task or record in
 * CPU, the figure that bounds throughput on a machine with few cores. In-JVM runs only: it counts
 * every thread of this process (broker, scheduler, load generators, simulated workers).
 *
 * <p>It also splits that CPU into {@link Part}s, so a figure for the whole JVM can be read: the Kafka
 * Streams stream threads (the scheduler's or the baseline's, whichever runs in the window), their
 * producers' network threads, the embedded broker's request and network threads, the workers'
 * threads (simulated or agents), and, where
 * {@code /proc} exists, the JIT compiler and the GC threads. A short run on a cold JVM spends a large
 * share of its CPU compiling (a 20,000-task drain: about a third), which is no cost of a task.
 */
public final class CpuSampler implements AutoCloseable {

    /** A share of the JVM's CPU, by the threads that spend it. */
    public enum Part {
        STREAM_THREADS, STREAM_PRODUCERS, BROKER, WORKERS, JIT, GC;

        /** How reports name the part. */
        public String label() {
            return switch (this) {
                case STREAM_THREADS -> "stream threads";
                case STREAM_PRODUCERS -> "their producers' network threads";
                case BROKER -> "broker request and network threads";
                case WORKERS -> "the workers' threads (simulated or agents)";
                case JIT -> "JIT compiler threads";
                case GC -> "GC threads";
            };
        }

        /** The part of a Java thread by its name, or null. */
        static Part ofJavaThread(String name) {
            if (name.startsWith("kafka-producer-network-thread") && name.contains("-StreamThread-")) {
                return STREAM_PRODUCERS;
            }
            if (name.contains("-StreamThread-")) {
                return STREAM_THREADS;
            }
            if (name.startsWith("data-plane-kafka-")) {
                return BROKER;
            }
            if (isWorkers(name)) {
                return WORKERS;
            }
            return null;
        }

        /**
         * Whether a thread is the simulated workers' (their assignments reader, heartbeats and producer) or an
         * agent's (its reader, publisher, heartbeats, attempts, and its Kafka clients' threads).
         */
        private static boolean isWorkers(String name) {
            if (name.startsWith("tail-") && name.endsWith("assignments")) {
                return true;
            }
            for (String prefix : WORKER_THREADS) {
                if (name.startsWith(prefix)) {
                    return true;
                }
            }
            return name.contains("| cronoq-worker-") || name.contains("| cronoq-bench-workers-");
        }

        /** The part of a JVM-internal thread by its (15-character) OS name, or null. */
        static Part ofNativeThread(String comm) {
            if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                return JIT;
            }
            if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
                return GC;
            }
            return null;
        }
    }

    /** Name prefixes of the threads of the simulated workers and the agents (see {@link Part#WORKERS}). */
    private static final List<String> WORKER_THREADS = List.of("simulated-worker-heartbeats", "cronoq-assignments-",
            "cronoq-publish-", "cronoq-heartbeat-", "cronoq-release-", "cronoq-attempt-", "bench-agent-");
    private static final long SAMPLE_MS = 50;
    private static final long DISCOVER_NANOS = 1_000_000_000L;
    private static final Path TASKS = Path.of("/proc/self/task");
    /** USER_HZ: the unit of utime and stime in /proc/.../stat, 100 on every Linux architecture Java runs on. */
    private static final long NANOS_PER_TICK = 10_000_000L;
    private static final int PARTS = Part.values().length;

    private record Sample(long nanos, long cpuNanos, long[] parts) {}

    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final boolean threadCpu;
    private final boolean proc = Files.isDirectory(TASKS);
    /** Java thread id to its part (null: none), and the CPU last read for the ones with a part. */
    private final Map<Long, Part> javaParts = new HashMap<>();
    private final Map<Long, Long> javaLast = new HashMap<>();
    /** OS thread id to its part (null: none), and the CPU ticks last read for the ones with a part. */
    private final Map<String, Part> nativeParts = new HashMap<>();
    private final Map<String, Long> nativeLast = new HashMap<>();
    private final long[] totals = new long[PARTS];
    private long lastDiscovery;
    private volatile boolean running = true;

    private CpuSampler() {
        boolean cpuTime = false;
        try {
            cpuTime = threads.isThreadCpuTimeSupported();
            if (cpuTime && !threads.isThreadCpuTimeEnabled()) {
                threads.setThreadCpuTimeEnabled(true);
            }
        } catch (UnsupportedOperationException | SecurityException e) {
            cpuTime = false;
        }
        threadCpu = cpuTime;
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
            long now = System.nanoTime();
            if (samples.isEmpty() || now - lastDiscovery >= DISCOVER_NANOS) {
                discover();
                lastDiscovery = now;
            }
            long[] parts = readParts();
            synchronized (samples) {
                samples.add(new Sample(now, cpuNanos(), parts));
            }
            try {
                Thread.sleep(SAMPLE_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Finds threads that started since the last look and sorts them into parts (once per thread). */
    private void discover() {
        if (threadCpu) {
            for (long id : threads.getAllThreadIds()) {
                if (!javaParts.containsKey(id)) {
                    ThreadInfo info = threads.getThreadInfo(id);
                    javaParts.put(id, info == null ? null : Part.ofJavaThread(info.getThreadName()));
                }
            }
        }
        if (proc) {
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
                for (Path task : tasks) {
                    String tid = task.getFileName().toString();
                    if (!nativeParts.containsKey(tid)) {
                        nativeParts.put(tid, Part.ofNativeThread(Files.readString(task.resolve("comm")).strip()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                // a thread ended while listing: the next look finds the rest
            }
        }
    }

    /** Adds each tracked thread's CPU since the last sample to its part; returns the running totals. */
    private long[] readParts() {
        accumulate(javaParts, javaLast, threads::getThreadCpuTime, 1);
        accumulate(nativeParts, nativeLast, CpuSampler::ticks, NANOS_PER_TICK);
        return totals.clone();
    }

    /**
     * Adds the CPU each thread of {@code parts} that has a part spent since it was last read (its
     * counter in {@code unitNanos}, read by {@code read}, -1 once the thread is gone) to its part's total.
     */
    private <K> void accumulate(Map<K, Part> parts, Map<K, Long> last, ToLongFunction<K> read, long unitNanos) {
        for (Iterator<Map.Entry<K, Part>> it = parts.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<K, Part> e = it.next();
            if (e.getValue() == null) {
                continue;
            }
            long counter = read.applyAsLong(e.getKey());
            if (counter < 0) {
                it.remove();
                last.remove(e.getKey());
                continue;
            }
            Long before = last.put(e.getKey(), counter);
            totals[e.getValue().ordinal()] += (counter - (before == null ? 0 : before)) * unitNanos;
        }
    }

    /** utime + stime of an OS thread of this process, in ticks, or -1 if it is gone. */
    private static long ticks(String tid) {
        try {
            String stat = Files.readString(TASKS.resolve(tid).resolve("stat"));
            // The name in parentheses may contain spaces: fields are counted after its closing parenthesis.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** CPU seconds this process spent between two {@link System#nanoTime()} moments (to the nearest sample). */
    public double cpuSecondsBetween(long fromNanos, long toNanos) {
        synchronized (samples) {
            return (at(toNanos).cpuNanos() - at(fromNanos).cpuNanos()) / 1e9;
        }
    }

    /**
     * How many cores this process kept busy on average over {@code seconds} from a {@link System#nanoTime()}
     * moment (a measured part's start and length): on a machine of few cores, how near a steady load runs to the
     * point where its threads queue for the CPU.
     */
    public double coresBusyOver(long fromNanos, int seconds) {
        return cpuSecondsBetween(fromNanos, fromNanos + TimeUnit.SECONDS.toNanos(seconds)) / seconds;
    }

    /**
     * The CPU seconds of each measured part between two moments, in {@link Part} order, plus "the rest" (the whole
     * JVM less the parts). The JIT and GC parts are left out where there is no {@code /proc}, the Java parts where
     * the JVM does not measure thread CPU time.
     */
    public Map<String, Double> cpuSecondsByPartBetween(long fromNanos, long toNanos) {
        Map<String, Double> out = new LinkedHashMap<>();
        synchronized (samples) {
            Sample from = at(fromNanos);
            Sample to = at(toNanos);
            long rest = to.cpuNanos() - from.cpuNanos();
            for (Part part : Part.values()) {
                boolean measured = part == Part.JIT || part == Part.GC ? proc : threadCpu;
                if (!measured) {
                    continue;
                }
                long spent = to.parts()[part.ordinal()] - from.parts()[part.ordinal()];
                out.put(part.label(), spent / 1e9);
                rest -= spent;
            }
            out.put("the rest (load generator, readers, other broker threads)", rest / 1e9);
        }
        return out;
    }

    /** CPU seconds by part, as milliseconds per item (task or record). */
    public static Map<String, Double> perItemMs(Map<String, Double> seconds, long items) {
        Map<String, Double> out = new LinkedHashMap<>();
        seconds.forEach((part, s) -> out.put(part, items == 0 ? 0 : s * 1000 / items));
        return out;
    }

    private Sample at(long nanos) {
        Sample best = samples.get(0);
        for (Sample s : samples) {
            if (Math.abs(s.nanos() - nanos) < Math.abs(best.nanos() - nanos)) {
                best = s;
            }
        }
        return best;
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
