package io.cronoq.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Memory figures of a process: heap used after a full GC (this JVM) and resident set size (any process, Linux). */
public final class ProcessMemory {

    private ProcessMemory() {}

    /** Heap used right after {@link System#gc()} (twice, so what the first freed is gone), in bytes. */
    public static long heapUsedAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The resident set size of a process from {@code /proc/<pid>/status}, or empty where there is no /proc. */
    public static OptionalLong rss(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring("VmRSS:".length()).trim().split("\\s+");
                    return OptionalLong.of(Long.parseLong(parts[0]) * 1024);
                }
            }
            return OptionalLong.empty();
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** The resident set size of this JVM. */
    public static OptionalLong rssOfThisProcess() {
        return rss(ProcessHandle.current().pid());
    }

    /** The system's load averages (1, 5, 15 min) from {@code /proc/loadavg}, or an empty array. */
    public static double[] loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return new double[] {Double.parseDouble(parts[0]), Double.parseDouble(parts[1]), Double.parseDouble(parts[2])};
        } catch (IOException | RuntimeException e) {
            return new double[0];
        }
    }
}
