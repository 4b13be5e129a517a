package io.cronoq.gateway;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.http.staticfiles.Location;
import io.javalin.json.JavalinJackson;
import io.javalin.router.Endpoint;
import io.javalin.router.InternalRouter;
import io.javalin.router.ParsedEndpoint;
import io.javalin.security.Roles;
import java.util.List;
import java.util.Set;

/**
 * The gateway as a Javalin app built from a {@link GatewayContext}, separately from starting it:
 * routes are method references on small route classes, each tagged with the
 * {@link Permission} that {@link Access} checks before it runs, errors are typed and mapped once
 * ({@link ErrorMapping}), the dashboard is static files from the jar at {@code /} (its charting
 * library at {@code /vendor/uplot/}). It holds no
 * scheduling logic: it reads through the context's state readers and writes through its commands.
 */
public final class Gateway {

    /** The charting library (uPlot, MIT), from its WebJar: {@code /vendor/uplot/dist/…} and its {@code LICENSE}. */
    static final String UPLOT = "/META-INF/resources/webjars/uplot/" + webJarVersion("uplot");

    /**
     * The largest request body the gateway reads: 1,000,000 bytes, room for a task's largest
     * payload (512 KiB, base64-encoded) and its fields; a larger body is 413 PAYLOAD_TOO_LARGE.
     */
    public static final long MAX_BODY_BYTES = 1_000_000;

    private Gateway() {}

    /** The version of a WebJar on the class path, from its Maven properties. */
    static String webJarVersion(String artifact) {
        String path = "/META-INF/maven/org.webjars.npm/" + artifact + "/pom.properties";
        try (java.io.InputStream in = Gateway.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("the WebJar " + artifact + " is not on the class path (" + path + ")");
            }
            java.util.Properties properties = new java.util.Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The app, not started: call {@code start(port)} on it, or use {@link GatewayServer}. */
    public static Javalin create(GatewayContext context) {
        return create(context, null, null, 0);
    }

    /**
     * The app, not started; with {@code tls} it listens with HTTPS only, on {@code bind} and
     * {@code port} (start it with the same), else as {@link #create(GatewayContext)}.
     */
    public static Javalin create(GatewayContext context, GatewayTls tls, String bind, int port) {
        TaskRoutes tasks = new TaskRoutes(context);
        GangRoutes gangs = new GangRoutes(context);
        WorkflowRoutes workflows = new WorkflowRoutes(context);
        SnapshotRoutes snapshot = new SnapshotRoutes(context);
        HistoryRoutes history = new HistoryRoutes(context);
        ForecastRoutes forecasts = new ForecastRoutes(context);
        WorkerRoutes workers = new WorkerRoutes(context);
        SharingRoutes sharing = new SharingRoutes(context);
        LimitRoutes limits = new LimitRoutes(context);
        HealthRoutes health = new HealthRoutes(context);
        SchemaRoutes schemas = new SchemaRoutes(context.registry());
        ServiceRoutes service = new ServiceRoutes(context.metrics());
        Access access = new Access(context.credentials());
        access.announce();
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            if (tls != null) {
                config.jetty.addConnector((server, http) -> tls.connector(server, http, bind, port));
            }
            config.http.maxRequestSize = MAX_BODY_BYTES;
            config.jsonMapper(new JavalinJackson(Json.MAPPER, false));
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/dashboard";
                files.location = Location.CLASSPATH;
            });
            config.staticFiles.add(files -> {
                files.hostedPath = "/vendor/uplot";
                files.directory = UPLOT;
                files.location = Location.CLASSPATH;
            });
            config.routes.beforeMatched(access::check);
            config.routes.beforeMatched(JsonOnly::check);
            config.routes.post("/v1/tasks", tasks::submit, Permission.SUBMIT);
            config.routes.get("/v1/tasks", tasks::list, Permission.READ);
            config.routes.get("/v1/tasks/{id}", tasks::get, Permission.READ);
            config.routes.delete("/v1/tasks/{id}", tasks::cancel, Permission.CANCEL);
            config.routes.post("/v1/gangs", gangs::submit, Permission.SUBMIT);
            config.routes.get("/v1/gangs/{id}", gangs::get, Permission.READ);
            config.routes.post("/v1/workflows", workflows::submit, Permission.SUBMIT);
            config.routes.get("/v1/workflows/{id}", workflows::get, Permission.READ);
            config.routes.delete("/v1/workflows/{id}", workflows::cancel, Permission.CANCEL);
            config.routes.get("/v1/snapshot", snapshot::get, Permission.READ);
            config.routes.get("/v1/history", history::get, Permission.READ);
            config.routes.get("/v1/pools/{pool}/forecast", forecasts::get, Permission.READ);
            config.routes.get("/v1/workers", workers::list, Permission.READ);
            config.routes.get("/v1/workers/{id}", workers::get, Permission.READ);
            config.routes.post("/v1/workers/{id}/drain", workers::drain, Permission.DRAIN);
            config.routes.get("/v1/tenants", sharing::list, Permission.READ);
            config.routes.put("/v1/pools/{pool}/tenants/{tenant}", sharing::setTenant, Permission.SHARE);
            config.routes.put("/v1/pools/{pool}/sharing", sharing::setPool, Permission.SHARE);
            config.routes.get("/v1/limits", limits::list, Permission.READ);
            config.routes.put("/v1/pools/{pool}/limits/keys", limits::setKey, Permission.LIMIT);
            config.routes.put("/v1/pools/{pool}/limits/rates/{name}", limits::setRate, Permission.LIMIT);
            config.routes.delete("/v1/pools/{pool}/limits/rates/{name}", limits::removeRate, Permission.LIMIT);
            config.routes.get("/metrics", service::metrics, Permission.METRICS);
            config.routes.get("/healthz", health::healthz, Permission.OPEN);
            config.routes.get("/readyz", health::readyz, Permission.OPEN);
            config.routes.get("/schemas/ids/{id}", schemas::byId, Permission.SCHEMAS);
            config.routes.get("/subjects", schemas::subjects, Permission.SCHEMAS);
            config.routes.get("/subjects/{subject}/versions", schemas::versions, Permission.SCHEMAS);
            config.routes.get("/subjects/{subject}/versions/{version}", schemas::version, Permission.SCHEMAS);
            config.routes.get("/openapi.json", service::openApi, Permission.OPEN);
            ErrorMapping.register(config.routes);
        });
        headAsGet(app.unsafe.internalRouter);
        return app;
    }

    /**
     * Gives every GET route a HEAD route with the same handler and {@link Permission}, so a HEAD is
     * authenticated and authorized exactly as its GET (Javalin's own answer to HEAD on a GET route
     * skips the before-handlers, {@link Access} among them); Jetty sends the headers, not the body.
     */
    private static void headAsGet(InternalRouter router) {
        for (ParsedEndpoint parsed : List.copyOf(router.allHttpHandlers())) {
            Endpoint get = parsed.endpoint;
            if (get.method == HandlerType.GET) {
                Roles roles = get.metadata(Roles.class);
                router.addHttpEndpoint(new Endpoint(HandlerType.HEAD, get.path, get.handler,
                        roles == null ? Set.of() : Set.of(roles)));
            }
        }
    }
}
