package io.cronoq.gateway;

import java.util.List;

/** {@code GET /v1/workers}: workers sorted by pool, then id. */
public record WorkerList(List<WorkerView> workers) {}
