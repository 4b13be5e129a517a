package io.cronoq.bench;

import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The scheduler a bench phase measures: in the bench's own JVM (the default: its memory figures then
 * include the embedded broker, the load generators and the workers) or in a child JVM
 * (its memory is its own).
 */
public interface SchedulerUnderTest extends AutoCloseable {

    /** Starts one, in this JVM or a child one. */
    static SchedulerUnderTest start(SchedulerConfig config, boolean fork, Path logFile) {
        if (!fork) {
            return new InJvm(SchedulerApp.start(config));
        }
        return new Forked(SchedulerProcess.start(Map.copyOf(config.asMap()),
                List.of("-Xmx1g", SchedulerProcess.GC_PAUSE_TARGET), logFile));
    }

    void awaitRunning(Duration timeout);

    /**
     * Its memory with {@code waiting} tasks waiting: heap used after a full GC of the JVM it runs in and the
     * resident set size of that process (-1 if unknown).
     */
    BenchReport.Memory memory(long waiting);

    /** Which process the memory figures describe. */
    String where();

    /**
     * A few of its stream thread's own metrics (commit and poll latency, records per poll and per
     * commit, time blocked on the producer), to tell what limits it; empty when it runs in a child JVM.
     */
    default Map<String, Double> threadMetrics() {
        return Map.of();
    }

    @Override
    void close();

    /** The scheduler in this JVM. */
    record InJvm(SchedulerApp app) implements SchedulerUnderTest {
        @Override
        public void awaitRunning(Duration timeout) {
            Waits.running(app.streams(), timeout, "the scheduler");
        }

        @Override
        public BenchReport.Memory memory(long waiting) {
            return new BenchReport.Memory(waiting, ProcessMemory.heapUsedAfterGc(),
                    ProcessMemory.rssOfThisProcess().orElse(-1));
        }

        @Override
        public Map<String, Double> threadMetrics() {
            return StreamThreadMetrics.of(app.streams());
        }

        @Override
        public String where() {
            return "the bench JVM (scheduler, plus the load generators, the workers and any embedded broker)";
        }

        @Override
        public void close() {
            app.close();
        }
    }

    /** The scheduler in a child JVM. */
    record Forked(SchedulerProcess process) implements SchedulerUnderTest {
        @Override
        public void awaitRunning(Duration timeout) {
            process.awaitRunning(timeout);
        }

        @Override
        public BenchReport.Memory memory(long waiting) {
            return new BenchReport.Memory(waiting, process.heapUsedAfterGc(), process.rss().orElse(-1));
        }

        @Override
        public String where() {
            return "the scheduler's own child JVM (-Xmx1g " + SchedulerProcess.GC_PAUSE_TARGET + ")";
        }

        @Override
        public void close() {
            process.close();
        }
    }
}
