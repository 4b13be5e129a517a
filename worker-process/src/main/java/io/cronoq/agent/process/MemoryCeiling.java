package io.cronoq.agent.process;

import java.io.IOException;
import java.util.List;

/**
 * A per-child memory ceiling: each attempt's child process gets its own {@link Confinement} holding it (and what it
 * starts) under {@link #limitBytes()}. Implementations: a cgroup of its own ({@link CgroupMemoryCeiling}, the child
 * is killed by the kernel when it goes over) or an address-space limit ({@link AddressSpaceCeiling}, allocations
 * beyond it fail). Pick one with {@link MemoryCeilings#select}.
 */
public interface MemoryCeiling {

    /** The ceiling in bytes. */
    long limitBytes();

    /** How the ceiling is enforced, for logs and messages, e.g. {@code cgroup v2 memory.max}. */
    String mechanism();

    /** Prepares the confinement of one child, named for logs and cgroup directories. */
    Confinement confine(String name) throws IOException;

    /** The ceiling around one child process. Closing it releases what it created (e.g. removes the cgroup). */
    interface Confinement extends AutoCloseable {

        /** The command that starts {@code command} under the ceiling. */
        List<String> wrap(List<String> command);

        /** Whether the child that ended with this exit code and stderr went over the ceiling. */
        boolean exceeded(int exitCode, String stderrTail);

        /** Kills every process still inside the confinement (a no-op where the confinement cannot list them). */
        void killAll();

        @Override
        void close();
    }
}
