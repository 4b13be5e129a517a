package io.cronoq.gateway;

import io.javalin.http.Context;

/** {@code GET /v1/pools/{pool}/forecast?limit=}: when the pool's backlog clears, from its last forecast. */
record ForecastRoutes(GatewayContext context) {

    /** How many of the first tasks to start are listed by default, and at most. */
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 1_000;

    void get(Context ctx) {
        String pool = ctx.pathParam("pool");
        int limit = Params.count(ctx, "limit", DEFAULT_LIMIT, MAX_LIMIT);
        ctx.json(context.reader(ctx).forecast(pool, limit).orElseThrow(() -> ApiException.notFound("no pool " + pool
                + "; a pool exists once a worker registered in it or a task was submitted to it")));
    }
}
