package io.cronoq.gateway;

import io.javalin.http.Context;
import java.util.List;

/** {@code GET /v1/snapshot[?pool=][&keys=][&classes=]}: every pool with its groups, or one pool. */
record SnapshotRoutes(GatewayContext context) {

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        ListCaps caps = Params.caps(ctx);
        StateReader reader = context.reader(ctx);
        if (pool == null) {
            ctx.json(reader.snapshot(caps));
            return;
        }
        PoolView view = reader.pool(pool, caps).orElseThrow(() -> ApiException.notFound("no pool " + pool
                + "; a pool exists once a worker registered in it or a task was submitted to it"));
        ctx.json(new SnapshotView(context.clock().instant().toString(), List.of(view)));
    }
}
