package io.cronoq.gateway;

import io.cronoq.events.SharingPolicySet;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How pools are shared between tenants: {@code GET /v1/tenants} reads it (from the pools' owners, as
 * the snapshot does); {@code PUT /v1/pools/{pool}/tenants/{tenant}} and {@code PUT
 * /v1/pools/{pool}/sharing} set it, as a {@code SharingPolicySet} on the submissions topic keyed by
 * the pool, journaled as set by the calling credential ({@value PoolRoutes#OPEN_SETTER} on an open gateway).
 * A pool's sharing can be set at any time, before any worker or task named it.
 */
record SharingRoutes(GatewayContext context) {

    /** {@code GET /v1/tenants[?pool=]}: every pool's tenants, or one pool's. */
    void list(Context ctx) {
        String pool = Params.pool(ctx);
        PoolRoutes.everyOrOne(ctx, context, pool, StateReader::tenants, r -> r.sharing(pool), TenantsView::new, "pool");
    }

    /** {@code PUT /v1/pools/{pool}/tenants/{tenant}}: a tenant's weight and quotas; 202 once on the topic. */
    void setTenant(Context ctx) {
        Instant at = context.clock().instant();
        SharingPolicySet policy = SharingPolicyParser.tenant(ctx.pathParam("pool"), ctx.pathParam("tenant"),
                ctx.bodyAsBytes(), PoolRoutes.setter(ctx), at);
        publish(ctx, policy);
    }

    /** {@code PUT /v1/pools/{pool}/sharing}: the pool's preemption settings; 202 once on the topic. */
    void setPool(Context ctx) {
        Instant at = context.clock().instant();
        SharingPolicySet policy = SharingPolicyParser.pool(ctx.pathParam("pool"), ctx.bodyAsBytes(),
                PoolRoutes.setter(ctx), at);
        publish(ctx, policy);
    }

    /**
     * Writes a checked policy. The pool need not be known yet: an operator sets quotas before the fleet
     * arrives, and the scheduler keeps the pool from its first policy on, as from its first worker or task.
     */
    private void publish(Context ctx, SharingPolicySet policy) {
        String pool = policy.getPool();
        context.commands().share(policy);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("pool", pool);
        if (policy.getTenant() != null) {
            body.put("tenant", policy.getTenant());
        }
        PoolRoutes.accepted(ctx, body, policy.getSetBy(), policy.getSetAt());
    }
}
