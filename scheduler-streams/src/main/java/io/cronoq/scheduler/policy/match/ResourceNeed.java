package io.cronoq.scheduler.policy.match;

import io.cronoq.events.ResourceRequest;
import io.cronoq.schemas.rules.PackageRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * A task's resource request in canonical form, the resource half of a requirement class: each
 * dimension a threshold the worker's published resources must reach, {@code 0} (or no package)
 * meaning no need. Two requests that ask the same have the same {@link #key()}: quantities are
 * normalized numbers, package names are normalized ({@code Scikit_Learn} is {@code scikit-learn}),
 * each requirement's constraints are sorted, and the requirements are sorted and deduplicated.
 *
 * <p>The key lists the dimensions that are needed, in this order, joined with {@code ;} (package
 * ranges contain commas): {@code cpu=<millicores>;mem=<bytes>;disk=<bytes>;gpu=<count>;pkg=<req>...},
 * e.g. {@code cpu=4000;mem=8589934592;gpu=1;pkg=torch>=2.0,<3}; {@link #parse} reads it back.
 *
 * @param cpuMillis   thousandths of a core, 0 for no need
 * @param memoryBytes bytes of memory, 0 for no need
 * @param diskBytes   bytes of disk, 0 for no need
 * @param gpus        GPUs with free memory, 0 for no need
 * @param packages    requirements every one of which an installed package must satisfy, in key order
 */
public record ResourceNeed(long cpuMillis, long memoryBytes, long diskBytes, int gpus,
                           List<PackageRequirement> packages) {

    /** No resource need: every worker satisfies it, even one that published no resources. */
    public static final ResourceNeed NONE = new ResourceNeed(0, 0, 0, 0, List.of());

    private static final Comparator<PackageRequirement.Constraint> CONSTRAINTS =
            Comparator.comparing((PackageRequirement.Constraint c) -> c.operator())
                    .thenComparing(PackageRequirement.Constraint::version,
                            Comparator.nullsFirst(Comparator.naturalOrder()))
                    .thenComparing(PackageRequirement.Constraint::toString);

    /** Checks the quantities and keeps the packages as given (use {@link #of} for the canonical form). */
    public ResourceNeed {
        if (cpuMillis < 0 || memoryBytes < 0 || diskBytes < 0 || gpus < 0) {
            throw new IllegalArgumentException("a resource need is 0 or more in every dimension");
        }
        packages = List.copyOf(packages);
    }

    /** The canonical need of a task's request ({@code null}: none). The request must be valid (see {@code Rules}). */
    public static ResourceNeed of(ResourceRequest request) {
        if (request == null) {
            return NONE;
        }
        List<PackageRequirement> packages = new ArrayList<>();
        if (request.getPackages() != null && !request.getPackages().isEmpty()) {
            TreeMap<String, PackageRequirement> canonical = new TreeMap<>();
            for (int i = 0; i < request.getPackages().size(); i++) {
                PackageRequirement r = canonical(PackageRequirement.parse("resources.packages[" + i + "]",
                        request.getPackages().get(i)));
                canonical.put(r.toString(), r);
            }
            packages.addAll(canonical.values());
        }
        return new ResourceNeed(orZero(request.getCpuMillis()), orZero(request.getMemoryBytes()),
                orZero(request.getDiskBytes()), request.getGpu() == null ? 0 : request.getGpu(), packages);
    }

    /**
     * The need a {@link #key()} spells ({@code ""} is {@link #NONE}).
     *
     * @throws IllegalArgumentException when the text is not such a key
     */
    public static ResourceNeed parse(String key) {
        if (key.isEmpty()) {
            return NONE;
        }
        long cpu = 0;
        long memory = 0;
        long disk = 0;
        int gpus = 0;
        List<PackageRequirement> packages = new ArrayList<>();
        for (String part : key.split(";")) {
            int eq = part.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + key + "' is not a resource key: '" + part + "' has no '='");
            }
            String value = part.substring(eq + 1);
            try {
                switch (part.substring(0, eq)) {
                    case "cpu" -> cpu = Long.parseLong(value);
                    case "mem" -> memory = Long.parseLong(value);
                    case "disk" -> disk = Long.parseLong(value);
                    case "gpu" -> gpus = Integer.parseInt(value);
                    case "pkg" -> packages.add(PackageRequirement.parse("classKey", value));
                    default -> throw new IllegalArgumentException("'" + key + "' is not a resource key: unknown "
                            + "dimension '" + part.substring(0, eq) + "' (cpu, mem, disk, gpu, pkg)");
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + key + "' is not a resource key: '" + part
                        + "' is not a number", e);
            }
        }
        return new ResourceNeed(cpu, memory, disk, gpus, packages);
    }

    /** Whether it needs nothing. */
    public boolean isEmpty() {
        return cpuMillis == 0 && memoryBytes == 0 && diskBytes == 0 && gpus == 0 && packages.isEmpty();
    }

    /** The canonical key, {@code ""} for no need. */
    public String key() {
        StringBuilder b = new StringBuilder();
        append(b, "cpu", cpuMillis);
        append(b, "mem", memoryBytes);
        append(b, "disk", diskBytes);
        append(b, "gpu", gpus);
        for (PackageRequirement p : packages) {
            b.append(b.isEmpty() ? "" : ";").append("pkg=").append(p);
        }
        return b.toString();
    }

    /** The request as the events carry it, e.g. for an API that shows a class's need. */
    public ResourceRequest toRequest() {
        List<String> names = new ArrayList<>(packages.size());
        for (PackageRequirement p : packages) {
            names.add(p.toString());
        }
        return new ResourceRequest(cpuMillis == 0 ? null : cpuMillis, memoryBytes == 0 ? null : memoryBytes,
                diskBytes == 0 ? null : diskBytes, gpus == 0 ? null : gpus, names);
    }

    /** In words with human units: {@code cpu 4, memory 8Gi, 1 GPU, torch>=2.0}; {@code ""} for no need. */
    @Override
    public String toString() {
        List<String> parts = new ArrayList<>();
        if (cpuMillis > 0) {
            parts.add("cpu " + Units.cpu(cpuMillis));
        }
        if (memoryBytes > 0) {
            parts.add("memory " + Units.bytes(memoryBytes));
        }
        if (diskBytes > 0) {
            parts.add("disk " + Units.bytes(diskBytes));
        }
        if (gpus > 0) {
            parts.add(Units.count(gpus, "GPU", "GPUs"));
        }
        for (PackageRequirement p : packages) {
            parts.add(p.toString());
        }
        return String.join(", ", parts);
    }

    /** The same requirement under its normalized name with its constraints sorted and deduplicated. */
    private static PackageRequirement canonical(PackageRequirement r) {
        List<PackageRequirement.Constraint> constraints = new ArrayList<>(r.constraints());
        constraints.sort(CONSTRAINTS);
        StringBuilder text = new StringBuilder(r.normalizedName());
        String previous = null;
        for (PackageRequirement.Constraint c : constraints) {
            String spelled = c.toString();
            if (!spelled.equals(previous)) {
                text.append(previous == null ? "" : ",").append(spelled);
            }
            previous = spelled;
        }
        return PackageRequirement.parse("resources.packages", text.toString());
    }

    private static void append(StringBuilder b, String name, long value) {
        if (value > 0) {
            b.append(b.isEmpty() ? "" : ";").append(name).append('=').append(value);
        }
    }

    private static long orZero(Number n) {
        return n == null ? 0 : n.longValue();
    }
}
