package io.cronoq.agent.process;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses how a memory ceiling is enforced on this machine: in {@link Mechanism#AUTO} order, a cgroup v2
 * {@code memory.max}, a cgroup v1 {@code memory.limit_in_bytes} (both need permission to create cgroups), then an
 * address-space limit with {@code prlimit}, then with {@code ulimit -v}. Each candidate is tried for real, so the
 * choice is one that works here; it is logged.
 */
public final class MemoryCeilings {

    /** A way to enforce the ceiling; {@code AUTO} takes the first that works. */
    public enum Mechanism {
        AUTO, CGROUP, RLIMIT;

        /** Reads {@code auto}, {@code cgroup} or {@code rlimit}, any case. */
        public static Mechanism parse(String text) {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        }
    }

    private static final Logger log = LoggerFactory.getLogger(MemoryCeilings.class);

    private MemoryCeilings() {
    }

    /**
     * The ceiling of {@code limitBytes} by the first mechanism that works.
     *
     * @throws IllegalStateException when the asked-for mechanism is not available here
     */
    public static MemoryCeiling select(long limitBytes, Mechanism mechanism) {
        MemoryCeiling chosen = null;
        if (mechanism == Mechanism.AUTO || mechanism == Mechanism.CGROUP) {
            Optional<CgroupMemoryCeiling> cgroup = CgroupMemoryCeiling.probe(limitBytes, CgroupMemoryCeiling.Version.V2)
                    .or(() -> CgroupMemoryCeiling.probe(limitBytes, CgroupMemoryCeiling.Version.V1));
            if (cgroup.isPresent()) {
                chosen = cgroup.get();
            } else if (mechanism == Mechanism.CGROUP) {
                throw new IllegalStateException("no cgroup memory ceiling is possible here: this process cannot "
                        + "create memory cgroups (needs root or a delegated cgroup); use --memory-mechanism rlimit");
            }
        }
        if (chosen == null) {
            chosen = new AddressSpaceCeiling(limitBytes, onPath("prlimit"));
        }
        log.info("Memory ceiling per child: {} by {}", io.cronoq.schemas.rules.Quantities.formatBytes(limitBytes),
                chosen.mechanism());
        return chosen;
    }

    static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
