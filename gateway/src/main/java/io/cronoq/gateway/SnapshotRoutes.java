package io.cronoq.gateway;

import io.javalin.http.Context;
import java.util.List;

/** {@code GET /v1/snapshot[?pool=]}: every pool with its groups, or one pool. */
record SnapshotRoutes(GatewayContext context) {

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        StateReader reader = context.reader(ctx);
        if (pool == null) {
            ctx.json(reader.snapshot());
            return;
        }
        PoolView view = reader.pool(pool).orElseThrow(() -> ApiException.notFound("no pool " + pool
                + "; a pool exists once a worker registered in it or a task was submitted to it"));
        ctx.json(new SnapshotView(context.clock().instant().toString(), List.of(view)));
    }
}
