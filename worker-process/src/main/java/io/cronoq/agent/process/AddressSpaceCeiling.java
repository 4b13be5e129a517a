package io.cronoq.agent.process;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A memory ceiling as an address-space limit ({@code RLIMIT_AS}) set with {@code prlimit --as=} or, without
 * prlimit, {@code ulimit -v} in {@code sh}. The child is not killed: its allocations beyond the limit fail, and it
 * usually exits with an error; such an exit counts as exceeding the ceiling when its stderr says memory ran out
 * (Python's MemoryError, "Cannot allocate memory", "memory exhausted", std::bad_alloc, OutOfMemoryError...).
 * Address space is not memory use: runtimes that reserve large virtual ranges (the JVM, Go, Node) may need a higher
 * limit than what they really use; a cgroup ceiling has no such caveat.
 */
public final class AddressSpaceCeiling implements MemoryCeiling {

    private static final Pattern OUT_OF_MEMORY = Pattern.compile(
            "memoryerror|cannot allocate memory|out of memory|memory exhausted|bad_alloc|outofmemoryerror"
                    + "|failed to reserve|not enough memory|allocation failed|unable to allocate");

    private final long limitBytes;
    private final boolean prlimit;

    /**
     * @param limitBytes the limit (rounded up to whole KiB for {@code ulimit -v})
     * @param prlimit    use {@code prlimit} (else {@code sh -c 'ulimit -v ...'})
     */
    public AddressSpaceCeiling(long limitBytes, boolean prlimit) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("a memory ceiling must be positive, got " + limitBytes);
        }
        this.limitBytes = limitBytes;
        this.prlimit = prlimit;
    }

    @Override
    public long limitBytes() {
        return limitBytes;
    }

    @Override
    public String mechanism() {
        return prlimit ? "address-space limit (prlimit --as)" : "address-space limit (ulimit -v)";
    }

    @Override
    public Confinement confine(String name) {
        return new Confinement() {
            @Override
            public List<String> wrap(List<String> command) {
                List<String> out = new ArrayList<>();
                if (prlimit) {
                    out.add("prlimit");
                    out.add("--as=" + limitBytes);
                    out.add("--");
                } else {
                    out.add("sh");
                    out.add("-c");
                    out.add("ulimit -v " + ((limitBytes + 1023) / 1024) + " && exec \"$@\"");
                    out.add("cronoq-ceiling");
                }
                out.addAll(command);
                return out;
            }

            @Override
            public boolean exceeded(int exitCode, String stderrTail) {
                return exitCode != 0 && OUT_OF_MEMORY.matcher(stderrTail.toLowerCase(Locale.ROOT)).find();
            }

            @Override
            public void killAll() {
                // An rlimit does not group processes; the runner kills the process tree.
            }

            @Override
            public void close() {
                // Nothing was created.
            }
        };
    }
}
