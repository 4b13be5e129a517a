package io.cronoq.gateway;

import io.cronoq.events.TaskCancelRequested;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerDraining;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.javalin.Javalin;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Set;

/**
 * A gateway started in-process on a free port, with no broker behind it: its readers read nothing
 * (every read is 503, see {@link NoState}) and its writer refuses, so what these gateways answer is
 * the front door's own work — authentication, the request's headers and the body's parsing.
 * {@link #SECURED} has an admin, a viewer, a submitter in pool {@code ours} and a worker credential;
 * the secret of each is {@link #secret}.
 */
final class TestGateway implements AutoCloseable {

    static final Credentials SECURED = Credentials.of(List.of(
            credential("admin", Role.ADMIN, null),
            credential("viewer", Role.VIEWER, null),
            credential("submitter", Role.SUBMITTER, Set.of("ours")),
            credential("worker", Role.WORKER, Set.of("ours"))));

    final Javalin app;
    final Api api;

    private TestGateway(Javalin app) {
        this.app = app;
        this.api = new Api("http://localhost:" + app.port());
    }

    /** Started with {@code credentials} ({@link Credentials#none()}: open). */
    static TestGateway start(Credentials credentials) {
        return new TestGateway(Gateway.create(context(credentials)).start(0));
    }

    static GatewayContext context(Credentials credentials) {
        return new GatewayContext(new NoState(), new NoState(), REFUSES_WRITES, new InMemorySchemaRegistry(),
                () -> "# metrics\n", Clock.systemUTC(), credentials);
    }

    static String secret(String name) {
        return name + "-secret-0123456789";
    }

    private static Credential credential(String name, Role role, Set<String> pools) {
        return new Credential(name, role, secret(name).getBytes(StandardCharsets.UTF_8), pools, Set.of());
    }

    @Override
    public void close() {
        app.stop();
    }

    private static final Commands REFUSES_WRITES = new Commands() {
        @Override
        public void submit(TaskSubmitted task) {
            throw new IllegalStateException("this test gateway writes nothing");
        }

        @Override
        public void cancel(TaskCancelRequested cancel) {
            throw new IllegalStateException("this test gateway writes nothing");
        }

        @Override
        public void drain(WorkerDraining drain) {
            throw new IllegalStateException("this test gateway writes nothing");
        }
    };
}
