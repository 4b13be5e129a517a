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

    /** Writes a checked policy of a pool some instance knows; a pool none knows is 404, and nothing is written. */
    private void publish(Context ctx, SharingPolicySet policy) {
        String pool = policy.getPool();
        if (context.cluster().sharing(pool).isEmpty()) {
            throw ApiException.notFound("pool", "no worker or task has named pool " + pool + " yet; a pool's sharing "
                    + "is set once a worker registered in it or a task was submitted to it");
        }
        context.commands().share(policy);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("pool", pool);
        if (policy.getTenant() != null) {
            body.put("tenant", policy.getTenant());
        }
        PoolRoutes.accepted(ctx, body, policy.getSetBy(), policy.getSetAt());
    }
}
