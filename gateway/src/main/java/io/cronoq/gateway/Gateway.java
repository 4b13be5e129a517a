package io.cronoq.gateway;

import io.javalin.Javalin;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;

/**
 * The gateway as a Javalin app built from a {@link GatewayContext}, separately from starting it:
 * routes are method references on small route classes, errors are typed and mapped once
 * ({@link ErrorMapping}), the dashboard is static files from the jar at {@code /}. It holds no
 * scheduling logic: it reads through the context's state readers and writes through its commands.
 */
public final class Gateway {

    private Gateway() {}

    /** The app, not started: call {@code start(port)} on it, or use {@link GatewayServer}. */
    public static Javalin create(GatewayContext context) {
        TaskRoutes tasks = new TaskRoutes(context);
        SnapshotRoutes snapshot = new SnapshotRoutes(context);
        WorkerRoutes workers = new WorkerRoutes(context);
        HealthRoutes health = new HealthRoutes(context);
        SchemaRoutes schemas = new SchemaRoutes(context.registry());
        ServiceRoutes service = new ServiceRoutes(context.metrics());
        return Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jsonMapper(new JavalinJackson(Json.MAPPER, false));
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/dashboard";
                files.location = Location.CLASSPATH;
            });
            config.routes.post("/v1/tasks", tasks::submit);
            config.routes.get("/v1/tasks", tasks::list);
            config.routes.get("/v1/tasks/{id}", tasks::get);
            config.routes.delete("/v1/tasks/{id}", tasks::cancel);
            config.routes.get("/v1/snapshot", snapshot::get);
            config.routes.get("/v1/workers", workers::list);
            config.routes.get("/v1/workers/{id}", workers::get);
            config.routes.post("/v1/workers/{id}/drain", workers::drain);
            config.routes.get("/metrics", service::metrics);
            config.routes.get("/healthz", health::healthz);
            config.routes.get("/readyz", health::readyz);
            config.routes.get("/schemas/ids/{id}", schemas::byId);
            config.routes.get("/subjects", schemas::subjects);
            config.routes.get("/subjects/{subject}/versions", schemas::versions);
            config.routes.get("/subjects/{subject}/versions/{version}", schemas::version);
            config.routes.get("/openapi.json", service::openApi);
            ErrorMapping.register(config.routes);
        });
    }
}
