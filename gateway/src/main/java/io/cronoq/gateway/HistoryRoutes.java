package io.cronoq.gateway;

import io.javalin.http.Context;

/** {@code GET /v1/history?pool=&minutes=}: a pool's last minutes, per minute, from the journal. */
final class HistoryRoutes {

    static final int MAX_MINUTES = 60;

    private final GatewayContext context;

    HistoryRoutes(GatewayContext context) {
        this.context = context;
    }

    void get(Context ctx) {
        String pool = Params.pool(ctx);
        if (pool == null) {
            throw ApiException.invalid("pool", "name the pool: ?pool=");
        }
        int minutes = minutes(ctx);
        ctx.json(context.history().history(pool, minutes, context.clock().instant()).orElseThrow(() ->
                ApiException.notFound("no history of pool " + pool + " in the last " + minutes + " minutes")));
    }

    private static int minutes(Context ctx) {
        String text = ctx.queryParam("minutes");
        if (text == null || text.isEmpty()) {
            return MAX_MINUTES;
        }
        try {
            int minutes = Integer.parseInt(text);
            if (minutes >= 1 && minutes <= MAX_MINUTES) {
                return minutes;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.invalid("minutes", "minutes '" + text + "' is not a whole number from 1 to " + MAX_MINUTES);
    }
}
