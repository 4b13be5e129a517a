package io.cronoq.gateway;

import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.schemas.SchemaRegistry;
import java.time.Clock;
import java.util.Objects;

/**
 * Everything the gateway's routes use, and nothing they may change but through {@link Commands}:
 * the state readers (the whole cluster's, and this instance's own for forwarded requests), the
 * event writer, the schema registry it serves, its metrics and its clock.
 *
 * @param cluster  answers for every pool, forwarding to the instance that owns one
 * @param local    answers from this instance's stores only (what a peer's forwarded request gets)
 * @param commands writes submissions, cancels and drains to the input topics
 * @param registry the registry served under the Confluent paths
 * @param metrics  the Prometheus scrape
 * @param clock    "now" for submissions, cancels and waiting ages
 * @param credentials who may call what ({@link Credentials#none()}: open, for local development)
 * @param history  the pools' recent minutes, folded from the journal
 * @param gangMaxSize the most members {@code POST /v1/gangs} takes ({@link GatewaySettings#GANG_MAX_SIZE})
 */
public record GatewayContext(StateReader cluster, StateReader local, Commands commands, SchemaRegistry registry,
                             MetricsSource metrics, Clock clock, Credentials credentials, HistorySource history,
                             int gangMaxSize) {

    /** A gateway taking gangs of at most {@link GatewaySettings#DEFAULT_GANG_MAX_SIZE} members. */
    public GatewayContext(StateReader cluster, StateReader local, Commands commands, SchemaRegistry registry,
                          MetricsSource metrics, Clock clock, Credentials credentials, HistorySource history) {
        this(cluster, local, commands, registry, metrics, clock, credentials, history,
                GatewaySettings.DEFAULT_GANG_MAX_SIZE);
    }

    /** A gateway without history ({@link HistorySource#NONE}). */
    public GatewayContext(StateReader cluster, StateReader local, Commands commands, SchemaRegistry registry,
                          MetricsSource metrics, Clock clock, Credentials credentials) {
        this(cluster, local, commands, registry, metrics, clock, credentials, HistorySource.NONE);
    }

    /** An open gateway (no credentials): local development and tests. */
    public GatewayContext(StateReader cluster, StateReader local, Commands commands, SchemaRegistry registry,
                          MetricsSource metrics, Clock clock) {
        this(cluster, local, commands, registry, metrics, clock, Credentials.none());
    }

    /** Checks that nothing is missing. */
    public GatewayContext {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(history, "history");
        if (gangMaxSize < 1) {
            throw new IllegalArgumentException("gangMaxSize is " + gangMaxSize + "; a gang has at least 1 member");
        }
    }

    /** The reader a request gets: this instance's own when a peer forwarded it, else the cluster's. */
    StateReader reader(io.javalin.http.Context ctx) {
        return PeerClient.LOCAL.equals(ctx.header(PeerClient.SCOPE_HEADER)) ? local : cluster;
    }
}
