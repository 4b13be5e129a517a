package io.cronoq.gateway;

import java.util.List;
import java.util.Map;

/**
 * A worker registration as {@code GET /v1/workers} shows it.
 *
 * @param busy    attempts it runs now
 * @param running those attempts
 */
public record WorkerView(String id, String pool, Map<String, String> labels, int slots, int busy, String state,
                         long generation, WorkerResourcesView resources, String registeredAt, String lastHeartbeat,
                         List<RunningView> running) {

    /** One attempt a worker runs. */
    public record RunningView(String taskId, int attempt) {}

    /** What the worker published at registration. */
    public record WorkerResourcesView(String cpu, String memory, String disk, List<GpuView> gpus,
                                      Map<String, String> packages) {}

    /** One GPU of a worker. */
    public record GpuView(int index, String model, String memory, String memoryFree) {}
}
