package io.cronoq.agent.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A memory ceiling as a cgroup of its own per child: cgroup v2 {@code memory.max} (swap off with
 * {@code memory.swap.max}), or on a cgroup v1 host {@code memory.limit_in_bytes}. The child joins its cgroup before
 * it runs (a {@code sh} wrapper writes its pid into {@code cgroup.procs}, then {@code exec}s the command), so
 * everything it starts is inside too. Going over the ceiling gets the child killed by the kernel's OOM killer, alone;
 * the cgroup's {@code oom_kill} counter tells the runner that this was the ceiling. Needs a cgroup directory this
 * process may create sub-groups in (root, or a delegated subtree): {@link #probe} finds one or says there is none.
 */
public final class CgroupMemoryCeiling implements MemoryCeiling {

    /** Which cgroup hierarchy holds the memory controller. */
    public enum Version {
        V1, V2
    }

    private static final Logger log = LoggerFactory.getLogger(CgroupMemoryCeiling.class);
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final long limitBytes;
    private final Version version;
    private final Path parent;

    CgroupMemoryCeiling(long limitBytes, Version version, Path parent) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("a memory ceiling must be positive, got " + limitBytes);
        }
        this.limitBytes = limitBytes;
        this.version = version;
        this.parent = parent;
    }

    /**
     * A cgroup ceiling of this version if this process can create and remove a memory-limited cgroup: tried under
     * its own cgroup first, then at the root of the hierarchy.
     */
    public static Optional<CgroupMemoryCeiling> probe(long limitBytes, Version version) {
        for (Path candidate : candidates(version)) {
            CgroupMemoryCeiling ceiling = new CgroupMemoryCeiling(limitBytes, version, candidate);
            try {
                ceiling.confine("probe").close();
                log.debug("cgroup {} memory ceilings work under {}", version, candidate);
                return Optional.of(ceiling);
            } catch (IOException | RuntimeException e) {
                log.debug("cgroup {} memory ceilings do not work under {}: {}", version, candidate, e.toString());
            }
        }
        return Optional.empty();
    }

    @Override
    public long limitBytes() {
        return limitBytes;
    }

    @Override
    public String mechanism() {
        return version == Version.V2 ? "cgroup v2 memory.max under " + parent
                : "cgroup v1 memory.limit_in_bytes under " + parent;
    }

    /** The directory the per-child cgroups are created in. */
    public Path parent() {
        return parent;
    }

    @Override
    public Confinement confine(String name) throws IOException {
        String safe = name.replaceAll("[^A-Za-z0-9._-]", "_");
        if (safe.length() > 80) {
            safe = safe.substring(0, 80);
        }
        Path dir = parent.resolve("cronoq-" + ProcessHandle.current().pid() + "-" + SEQUENCE.incrementAndGet() + "-"
                + safe);
        Files.createDirectory(dir);
        try {
            if (version == Version.V2) {
                write(dir.resolve("memory.max"), Long.toString(limitBytes));
                writeIfPresent(dir.resolve("memory.swap.max"), "0");
            } else {
                write(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
                writeIfPresent(dir.resolve("memory.memsw.limit_in_bytes"), Long.toString(limitBytes));
            }
        } catch (IOException | RuntimeException e) {
            remove(dir);
            throw e;
        }
        return new CgroupConfinement(dir);
    }

    private final class CgroupConfinement implements Confinement {
        private final Path dir;

        CgroupConfinement(Path dir) {
            this.dir = dir;
        }

        @Override
        public List<String> wrap(List<String> command) {
            List<String> out = new ArrayList<>(List.of("sh", "-c", "echo $$ > \"$1\" && shift && exec \"$@\"",
                    "cronoq-ceiling", dir.resolve("cgroup.procs").toString()));
            out.addAll(command);
            return out;
        }

        @Override
        public boolean exceeded(int exitCode, String stderrTail) {
            if (version == Version.V2) {
                return counter(dir.resolve("memory.events"), "oom_kill") > 0;
            }
            long kills = counter(dir.resolve("memory.oom_control"), "oom_kill");
            if (kills >= 0) {
                return kills > 0;
            }
            // Kernels before 4.13 have no oom_kill line: hitting the limit and dying of SIGKILL is the evidence.
            return exitCode == 137 && counter(dir.resolve("memory.failcnt"), null) > 0;
        }

        @Override
        public void killAll() {
            Path kill = dir.resolve("cgroup.kill");
            if (version == Version.V2 && Files.exists(kill)) {
                try {
                    write(kill, "1");
                    return;
                } catch (IOException e) {
                    log.debug("Writing {} failed; killing the pids one by one", kill, e);
                }
            }
            for (long pid : pids(dir)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }

        @Override
        public void close() {
            killAll();
            remove(dir);
        }
    }

    /** Removes a cgroup once its processes are gone (they may take a moment to exit after a kill). */
    private static void remove(Path dir) {
        for (int i = 0; i < 100; i++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                if (i == 99) {
                    log.warn("Could not remove the cgroup {}: {}", dir, e.toString());
                    return;
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    log.warn("Interrupted while removing the cgroup {}; it stays", dir);
                    return;
                }
            }
        }
    }

    private static List<Long> pids(Path dir) {
        List<Long> pids = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("cgroup.procs"), StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    pids.add(Long.parseLong(line.strip()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            log.debug("Could not list the processes of {}", dir, e);
        }
        return pids;
    }

    /** The value of {@code key} in a {@code key value} file, the number in a one-number file for a null key, or -1. */
    private static long counter(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] parts = line.strip().split("\\s+");
                if (key == null && parts.length == 1 && !parts[0].isEmpty()) {
                    return Long.parseLong(parts[0]);
                }
                if (key != null && parts.length == 2 && parts[0].equals(key)) {
                    return Long.parseLong(parts[1]);
                }
            }
        } catch (IOException | NumberFormatException e) {
            log.debug("Could not read {} from {}", key, file, e);
        }
        return -1;
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.UTF_8);
    }

    private static void writeIfPresent(Path file, String value) {
        if (Files.exists(file)) {
            try {
                write(file, value);
            } catch (IOException e) {
                log.debug("Could not write {} to {} (kept the default)", value, file, e);
            }
        }
    }

    /** Where this process could create memory cgroups of the version: its own cgroup, then the hierarchy's root. */
    static List<Path> candidates(Version version) {
        Set<Path> out = new LinkedHashSet<>();
        try {
            List<String> mounts = Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8);
            List<String> groups = Files.readAllLines(Path.of("/proc/self/cgroup"), StandardCharsets.UTF_8);
            for (String mount : mounts) {
                String[] halves = mount.split(" - ", 2);
                if (halves.length < 2) {
                    continue;
                }
                String[] left = halves[0].split(" ");
                String[] right = halves[1].split(" ");
                if (left.length < 5 || right.length < 3) {
                    continue;
                }
                String root = left[3];
                Path mountPoint = Path.of(left[4]);
                boolean matches = version == Version.V2 ? right[0].equals("cgroup2")
                        : right[0].equals("cgroup") && List.of(right[2].split(",")).contains("memory");
                if (!matches) {
                    continue;
                }
                String own = ownPath(groups, version);
                if (own != null) {
                    String relative = own.startsWith(root) ? own.substring(root.length()) : own;
                    relative = relative.replaceFirst("^/+", "");
                    if (!relative.isEmpty()) {
                        out.add(mountPoint.resolve(relative));
                    }
                }
                out.add(mountPoint);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Cannot read this process's cgroups", e);
        }
        return new ArrayList<>(out);
    }

    private static String ownPath(List<String> groups, Version version) {
        for (String line : groups) {
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            boolean matches = version == Version.V2 ? parts[0].equals("0") && parts[1].isEmpty()
                    : List.of(parts[1].split(",")).contains("memory");
            if (matches) {
                return parts[2];
            }
        }
        return null;
    }
}
