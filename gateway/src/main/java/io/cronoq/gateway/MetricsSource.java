package io.cronoq.gateway;

/** What {@code GET /metrics} serves: a scrape in the Prometheus text format. */
public interface MetricsSource {

    /** The current metrics, refreshed for this scrape. */
    String scrape();
}
