package io.cronoq.gateway;

import io.cronoq.events.LimitSet;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A pool's concurrency keys and rate limits: {@code GET /v1/limits} reads them (from the pools'
 * owners, as the snapshot does), {@code PUT /v1/pools/{pool}/limits/keys}, {@code PUT} and {@code DELETE
 * /v1/pools/{pool}/limits/rates/{name}} set and remove them, as a {@code LimitSet} on the submissions
 * topic keyed by the pool, journaled as set by the calling credential ({@value PoolRoutes#OPEN_SETTER}
 * on an open gateway) at the gateway's time. A pool's limits can be set at any time, before any worker or
 * task named it.
 */
record LimitRoutes(GatewayContext context) {

    /** {@code GET /v1/limits[?pool=][&keys=]}: every pool's limits, or one pool's. */
    void list(Context ctx) {
        String pool = Params.pool(ctx);
        ListCaps caps = Params.keyCaps(ctx);
        PoolRoutes.everyOrOne(ctx, context, pool, r -> r.limits(caps), r -> r.limits(pool, caps), LimitsView::new,
                "pool");
    }

    /** {@code PUT /v1/pools/{pool}/limits/keys}: a key's limit in the pool, or its removal; 202 once on the topic. */
    void setKey(Context ctx) {
        Instant at = context.clock().instant();
        publish(ctx, LimitSetParser.key(ctx.pathParam("pool"), ctx.bodyAsBytes(), PoolRoutes.setter(ctx), at));
    }

    /** {@code PUT /v1/pools/{pool}/limits/rates/{name}}: defines or replaces a rate limit; 202 once on the topic. */
    void setRate(Context ctx) {
        Instant at = context.clock().instant();
        publish(ctx, LimitSetParser.rate(ctx.pathParam("pool"), ctx.pathParam("name"), ctx.bodyAsBytes(),
                PoolRoutes.setter(ctx), at));
    }

    /** {@code DELETE /v1/pools/{pool}/limits/rates/{name}}: removes a rate limit; 202 once on the topic. */
    void removeRate(Context ctx) {
        Instant at = context.clock().instant();
        publish(ctx, LimitSetParser.removeRate(ctx.pathParam("pool"), ctx.pathParam("name"), PoolRoutes.setter(ctx),
                at));
    }

    /**
     * Writes a checked limit. The pool need not be known yet: an operator sets limits before the fleet
     * arrives, and the scheduler keeps the pool from its first limit on, as from its first worker or task.
     */
    private void publish(Context ctx, LimitSet limit) {
        String pool = limit.getPool();
        context.commands().limit(limit);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("pool", pool);
        body.put("kind", limit.getKind().name());
        body.put("name", limit.getName());
        body.put("max", limit.getMax());
        body.put("perSecond", limit.getPerSecond());
        body.put("burst", limit.getBurst());
        PoolRoutes.accepted(ctx, body, limit.getSetBy(), limit.getSetAt());
    }
}
