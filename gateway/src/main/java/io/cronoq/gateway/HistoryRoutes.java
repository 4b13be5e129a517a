package io.cronoq.gateway;

import io.javalin.http.Context;

/** {@code GET /v1/history?pool=&minutes=}: a pool's last minutes, per minute, from the journal. */
record HistoryRoutes(GatewayContext context) {

    static final int MAX_MINUTES = 60;

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        if (pool == null) {
            throw ApiException.invalid("pool", "name the pool: ?pool=");
        }
        int minutes = Params.count(ctx, "minutes", MAX_MINUTES, MAX_MINUTES);
        ctx.json(context.history().history(pool, minutes, context.clock().instant()).orElseThrow(() ->
                ApiException.notFound("no history of pool " + pool + " in the last " + minutes + " minutes")));
    }
}
