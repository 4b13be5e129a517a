package io.cronoq.gateway;

import java.util.List;

/** {@code GET /v1/snapshot}: every pool (or the one asked for), sorted by name, as of {@code at}. */
public record SnapshotView(String at, List<PoolView> pools) {}
