package io.cronoq.agent;

import io.cronoq.events.Gpu;
import io.cronoq.events.WorkerResources;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Detects what a worker publishes at registration: cores (as thousandths of a core), memory, free disk of the work
 * directory, NVIDIA GPUs and the configured packages, then applies the overrides. A snapshot, never a live
 * reading; no probe failure stops a worker (an unreadable dimension is published as 0 and logged).
 */
public final class ResourceDetector {

    private static final Logger log = LoggerFactory.getLogger(ResourceDetector.class);

    private final LongSupplier cpuMillis;
    private final LongSupplier memoryBytes;
    private final Supplier<List<Gpu>> gpus;

    /**
     * @param cpuMillis   thousandths of a core this machine (or container) offers
     * @param memoryBytes memory of this machine (or container) in bytes
     * @param gpus        the GPU probe
     */
    public ResourceDetector(LongSupplier cpuMillis, LongSupplier memoryBytes, Supplier<List<Gpu>> gpus) {
        this.cpuMillis = cpuMillis;
        this.memoryBytes = memoryBytes;
        this.gpus = gpus;
    }

    /** The JVM's view of cores and memory (container-aware) and {@code nvidia-smi} on PATH. */
    public static ResourceDetector system() {
        return withGpuProbe(NvidiaSmi.onPath());
    }

    /** The JVM's view of cores and memory and the given {@code nvidia-smi}. */
    public static ResourceDetector withGpuProbe(NvidiaSmi nvidiaSmi) {
        return new ResourceDetector(() -> Runtime.getRuntime().availableProcessors() * 1000L,
                ResourceDetector::physicalMemory, nvidiaSmi::gpus);
    }

    /** Detects everything, then applies the overrides; {@code packages} are published as given (name → version). */
    public WorkerResources detect(Path workDir, Map<String, String> packages, ResourceOverrides overrides) {
        long cpu = overrides.cpuMillis() != null ? overrides.cpuMillis() : cpuMillis.getAsLong();
        long memory = overrides.memoryBytes() != null ? overrides.memoryBytes() : memoryBytes.getAsLong();
        long disk = overrides.diskBytes() != null ? overrides.diskBytes() : freeDisk(workDir);
        List<Gpu> detected = overrides.gpuCount() != null && overrides.gpuCount() == 0 ? List.of() : gpus.get();
        List<Gpu> published = overrides.gpuCount() == null ? detected
                : fit(detected, overrides.gpuCount(), overrides.gpuMemoryBytes() == null ? 0 : overrides.gpuMemoryBytes());
        return new WorkerResources(cpu, memory, disk, new ArrayList<>(published), new LinkedHashMap<>(packages));
    }

    private static List<Gpu> fit(List<Gpu> detected, int count, long memoryEach) {
        List<Gpu> out = new ArrayList<>(detected.subList(0, Math.min(count, detected.size())));
        int next = out.stream().mapToInt(Gpu::getIndex).max().orElse(-1) + 1;
        while (out.size() < count) {
            out.add(new Gpu(next++, null, memoryEach, memoryEach));
        }
        return out;
    }

    static long freeDisk(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            log.warn("Publishing 0 bytes of disk: the free space of {} could not be read ({})", dir, e.toString());
            return 0;
        }
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        log.warn("Publishing 0 bytes of memory: this JVM does not report the machine's memory; override it");
        return 0;
    }
}
