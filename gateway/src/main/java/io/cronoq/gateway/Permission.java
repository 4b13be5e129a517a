package io.cronoq.gateway;

import io.javalin.security.RouteRole;

/**
 * What a route needs, attached to it as a Javalin route role and checked by {@link Access} before
 * the route runs. The roles that hold each permission are in {@link Access}.
 */
enum Permission implements RouteRole {
    /** Health, readiness, the API description and the dashboard's static files: no token needed. */
    OPEN,
    /** Reading tasks, workers, snapshots, tenants and limits, in the credential's pools. */
    READ,
    /** Submitting tasks, in the credential's pools. */
    SUBMIT,
    /** Cancelling tasks, in the credential's pools. */
    CANCEL,
    /** Draining a worker. */
    DRAIN,
    /** Setting how a pool is shared between tenants (weights, quotas, preemption), in the credential's pools. */
    SHARE,
    /** Setting a pool's limits (concurrency keys' limits, rate limits), in the credential's pools. */
    LIMIT,
    /** The Prometheus scrape: every pool's gauges. */
    METRICS,
    /** The schema registry paths: schemas are not per pool. */
    SCHEMAS
}
