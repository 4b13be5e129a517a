package io.cronoq.ops;

import io.cronoq.agent.CronoqWorker;
import io.cronoq.agent.TaskContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The demo fleet of {@code cronoq dev}: two plain CPU workers and one with {@code gpu=a100}, in pool
 * {@code demo}, so the two groups and label placement can be seen at once. Each demo task "works"
 * for the number of milliseconds its payload names (default 2000), reporting progress, and answers
 * with the group it ran in.
 */
final class DemoWorkers implements AutoCloseable {

    static final String POOL = "demo";
    private static final long DEFAULT_RUN_MS = 2000;

    private final List<CronoqWorker> workers = new ArrayList<>();

    static DemoWorkers start(String bootstrapServers) {
        DemoWorkers demo = new DemoWorkers();
        try {
            demo.add(bootstrapServers, "demo-cpu-1", Map.of());
            demo.add(bootstrapServers, "demo-cpu-2", Map.of());
            demo.add(bootstrapServers, "demo-gpu-1", Map.of("gpu", "a100"));
            return demo;
        } catch (RuntimeException e) {
            demo.close();
            throw e;
        }
    }

    private void add(String bootstrapServers, String id, Map<String, String> labels) {
        CronoqWorker worker = CronoqWorker.builder()
                .bootstrap(bootstrapServers)
                .id(id)
                .pool(POOL)
                .labels(labels)
                .slots(2)
                .handler(DemoWorkers::run)
                .build();
        workers.add(worker);
        worker.start();
    }

    private static byte[] run(TaskContext ctx) throws InterruptedException {
        long runMs = runMillis(ctx.payloadAsString());
        long steps = 4;
        for (int step = 1; step <= steps; step++) {
            if (ctx.cancellation().await(Duration.ofMillis(runMs / steps))) {
                throw new InterruptedException("stopped: " + ctx.cancellation().reason().orElse("cancelled"));
            }
            ctx.progress((double) step / steps, "step " + step + " of " + steps);
        }
        return ("ran on " + ctx.workerId() + " in group " + ctx.group()).getBytes(StandardCharsets.UTF_8);
    }

    private static long runMillis(String payload) {
        try {
            return Math.max(0, Math.min(Duration.ofMinutes(10).toMillis(), Long.parseLong(payload.trim())));
        } catch (NumberFormatException e) {
            return DEFAULT_RUN_MS;
        }
    }

    List<CronoqWorker> workers() {
        return workers;
    }

    @Override
    public void close() {
        workers.forEach(worker -> {
            worker.drain();
            worker.awaitTermination(Duration.ofSeconds(10));
            worker.close();
        });
    }
}
