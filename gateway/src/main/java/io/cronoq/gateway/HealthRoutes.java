package io.cronoq.gateway;

import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code /healthz} (the process answers) and {@code /readyz} (the stores are queryable). */
record HealthRoutes(GatewayContext context) {

    void healthz(Context ctx) {
        ctx.json(Map.of("status", "UP"));
    }

    void readyz(Context ctx) {
        StateReader.Readiness readiness = context.local().readiness();
        if (!readiness.ready()) {
            throw ApiException.unavailable("not ready: " + readiness.reason(), null);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", "READY");
        body.put("streams", readiness.state());
        ctx.json(body);
    }
}
