package io.cronoq.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits for this JVM's JIT compilers to go quiet before a measured part, so that it runs on compiled code and its CPU
 * per task is not the compiling of what came before.
 *
 * <p>Why it is needed: the bench JVM holds the broker, the clients, the scheduler and the workers, and on 2 cores it
 * has one C2 compiler thread. A phase (a warm-up, the taking in of a stored drain's tasks) leaves it compiling for
 * seconds after it ends, and a measured part that starts at once pays for that: the JIT's threads were a third of
 * the CPU per task of a measured drain. An idle wait lets the compiling end before the clock starts.
 */
final class JitQuiet {

    /** Quiet: the compilers worked at most this share of the last {@link #WINDOW} (the JVM's own figure). */
    static final double QUIET_SHARE = 0.02;
    static final Duration WINDOW = Duration.ofSeconds(2);

    private JitQuiet() {}

    /**
     * What a wait found: how long it waited, whether the JIT went quiet within the limit, and its compile time over
     * the last window (ms per second).
     */
    record Result(double waitedSeconds, boolean quiet, double compileMsPerSecond) {
        String describe() {
            return quiet
                    ? String.format(java.util.Locale.ROOT, "the JIT went quiet after %.0f s", waitedSeconds)
                    : String.format(java.util.Locale.ROOT, "the JIT was still compiling after %.0f s (%.0f ms/s); "
                            + "measuring anyway", waitedSeconds, compileMsPerSecond);
        }
    }

    /**
     * Returns once the JIT spent at most {@link #QUIET_SHARE} of the last {@link #WINDOW} compiling, or after
     * {@code max}; at once where the JVM does not report its compile time.
     */
    static Result await(Duration max) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return new Result(0, true, 0);
        }
        long start = System.nanoTime();
        long before = jit.getTotalCompilationTime();
        while (true) {
            LockSupport.parkNanos(WINDOW.toNanos());
            long after = jit.getTotalCompilationTime();
            double msPerSecond = (after - before) * 1000.0 / WINDOW.toMillis();
            double waited = (System.nanoTime() - start) / 1e9;
            if ((after - before) <= QUIET_SHARE * WINDOW.toMillis()) {
                return new Result(waited, true, msPerSecond);
            }
            if (System.nanoTime() - start >= max.toNanos() || Thread.currentThread().isInterrupted()) {
                return new Result(waited, false, msPerSecond);
            }
            before = after;
        }
    }
}
