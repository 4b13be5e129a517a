package io.cronoq.gateway;

import io.javalin.http.Context;

/** {@code GET /v1/snapshot[?pool=][&keys=][&classes=]}: every pool with its groups, or one pool. */
record SnapshotRoutes(GatewayContext context) {

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        ListCaps caps = Params.caps(ctx);
        StateReader reader = context.reader(ctx);
        PoolRoutes.everyOrOne(ctx, pool, () -> reader.snapshot(caps), () -> reader.pool(pool, caps),
                views -> new SnapshotView(context.clock().instant().toString(), views),
                () -> ApiException.notFound("no pool " + pool + PoolRoutes.WHEN_A_POOL_EXISTS));
    }
}
