package io.cronoq.gateway;

import java.util.List;

/**
 * {@code GET /v1/limits}: the concurrency keys and rate limits of every pool (or the one asked for), sorted by
 * pool, as of {@code at}.
 */
public record LimitsView(String at, List<PoolLimitsView> pools) {}
