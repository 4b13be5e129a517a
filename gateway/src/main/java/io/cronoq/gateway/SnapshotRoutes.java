package io.cronoq.gateway;

import io.javalin.http.Context;

/** {@code GET /v1/snapshot[?pool=][&keys=][&classes=]}: every pool with its groups, or one pool. */
record SnapshotRoutes(GatewayContext context) {

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        ListCaps caps = Params.caps(ctx);
        // A snapshot's 404 names no field.
        PoolRoutes.everyOrOne(ctx, context, pool, r -> r.snapshot(caps), r -> r.pool(pool, caps), SnapshotView::new,
                null);
    }
}
