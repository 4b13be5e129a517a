package io.cronoq.scheduler.policy.match;

import io.cronoq.events.Gpu;
import io.cronoq.events.WorkerResources;
import io.cronoq.schemas.rules.PackageRequirement;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a worker published at registration, reduced to what matching reads: cpu, memory, disk, the
 * number of GPUs with free memory, and the installed packages. Workers with the same labels and
 * the same profile serve exactly the same requirement classes, so they share one profile (the policy's {@code Profile}).
 * Matching is a threshold model: every needed dimension ≥ the need; a worker that
 * published nothing satisfies no need at all (it said nothing about what it has).
 */
public record ResourceProfile(boolean published, long cpuMillis, long memoryBytes, long diskBytes, int gpus,
                       SortedMap<String, String> packages) {

    /** A worker that published no resources. */
    static final ResourceProfile UNPUBLISHED =
            new ResourceProfile(false, 0, 0, 0, 0, Collections.emptySortedMap());

    /** Why a worker cannot serve a need: the first dimension it falls short on, checked in this order. */
    public enum Dimension { UNPUBLISHED, CPU, MEMORY, DISK, GPU, PACKAGE }

    /**
     * The first shortfall of a worker against a need.
     *
     * @param dimension the dimension it falls short on
     * @param has       what it has in that dimension (cpu, memory, disk, GPUs); 0 otherwise
     * @param requirement for {@code PACKAGE}, the first requirement it does not satisfy
     * @param installed for {@code PACKAGE}, the versions it has of that package (maybe none)
     */
    public record Shortfall(Dimension dimension, long has, PackageRequirement requirement, TreeSet<String> installed) {}

    public static ResourceProfile of(WorkerResources r) {
        if (r == null) {
            return UNPUBLISHED;
        }
        int gpus = 0;
        if (r.getGpus() != null) {
            for (Gpu g : r.getGpus()) {
                if (g.getMemoryFreeBytes() > 0) {
                    gpus++;
                }
            }
        }
        SortedMap<String, String> packages = r.getPackages() == null || r.getPackages().isEmpty()
                ? Collections.emptySortedMap()
                : Collections.unmodifiableSortedMap(new TreeMap<>(r.getPackages()));
        return new ResourceProfile(true, r.getCpuMillis(), r.getMemoryBytes(), r.getDiskBytes(), gpus, packages);
    }

    /** Identifies the profile among those of one group. */
    public String key() {
        if (!published) {
            return "-";
        }
        StringBuilder b = new StringBuilder().append(cpuMillis).append(';').append(memoryBytes).append(';')
                .append(diskBytes).append(';').append(gpus);
        for (Map.Entry<String, String> p : packages.entrySet()) {
            b.append(';').append(p.getKey()).append("==").append(p.getValue());
        }
        return b.toString();
    }

    public boolean satisfies(ResourceNeed need) {
        return shortfall(need) == null;
    }

    /** The first dimension in which this worker falls short of the need, or {@code null} when it satisfies it. */
    public Shortfall shortfall(ResourceNeed need) {
        if (need.isEmpty()) {
            return null;
        }
        if (!published) {
            return new Shortfall(Dimension.UNPUBLISHED, 0, null, null);
        }
        if (cpuMillis < need.cpuMillis()) {
            return new Shortfall(Dimension.CPU, cpuMillis, null, null);
        }
        if (memoryBytes < need.memoryBytes()) {
            return new Shortfall(Dimension.MEMORY, memoryBytes, null, null);
        }
        if (diskBytes < need.diskBytes()) {
            return new Shortfall(Dimension.DISK, diskBytes, null, null);
        }
        if (gpus < need.gpus()) {
            return new Shortfall(Dimension.GPU, gpus, null, null);
        }
        for (PackageRequirement r : need.packages()) {
            if (!r.satisfiedBy(packages)) {
                TreeSet<String> installed = new TreeSet<>();
                for (Map.Entry<String, String> p : packages.entrySet()) {
                    if (r.isFor(p.getKey())) {
                        installed.add(p.getValue());
                    }
                }
                return new Shortfall(Dimension.PACKAGE, 0, r, installed);
            }
        }
        return null;
    }
}
