package io.cronoq.gateway;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** {@code /metrics} (Prometheus text format) and {@code /openapi.json} (this API, kept true by a test). */
final class ServiceRoutes {

    static final String OPENAPI_RESOURCE = "/openapi.json";
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final MetricsSource metrics;
    private final String openApi;

    ServiceRoutes(MetricsSource metrics) {
        this.metrics = metrics;
        this.openApi = resource(OPENAPI_RESOURCE);
    }

    void metrics(Context ctx) {
        ctx.contentType(PROMETHEUS_TEXT).result(metrics.scrape());
    }

    void openApi(Context ctx) {
        ctx.contentType("application/json").result(openApi);
    }

    private static String resource(String name) {
        try (InputStream in = ServiceRoutes.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the gateway's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
