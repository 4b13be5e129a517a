package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** HEAD is authenticated and authorized exactly as GET, on every GET route, for every kind of caller. */
class GatewayHeadTest {

    private static TestGateway gateway;

    @BeforeAll
    static void start() {
        gateway = TestGateway.start(TestGateway.SECURED);
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** Every registered GET route, its path parameters filled in. */
    static Stream<String> getRoutes() {
        TreeSet<String> paths = new TreeSet<>();
        Gateway.create(TestGateway.context(TestGateway.SECURED)).unsafe.internalRouter.allHttpHandlers()
                .forEach(parsed -> {
                    if (parsed.endpoint.method.name().equals("GET")) {
                        paths.add(parsed.endpoint.path.replaceAll("\\{[^}]+}", "x1"));
                    }
                });
        assertThat(paths).contains("/v1/tasks", "/v1/snapshot", "/v1/workers", "/metrics");
        return paths.stream();
    }

    @ParameterizedTest(name = "HEAD {0}")
    @MethodSource("getRoutes")
    void headAnswersAsGetForEveryCaller(String path) {
        for (String who : new String[] {null, "admin", "viewer", "submitter", "worker"}) {
            Api caller = who == null ? gateway.api : gateway.api.withToken(TestGateway.secret(who));
            Api.Reply get = caller.get(path);
            Api.Reply head = caller.head(path);

            assertThat(head.status()).as("HEAD %s as %s (GET: %s)", path, who, get).isEqualTo(get.status());
            assertThat(head.text()).as("a HEAD answer has no body").isEmpty();
        }
    }

    @ParameterizedTest(name = "HEAD {0} without a token")
    @ValueSource(strings = {"/v1/tasks", "/v1/snapshot", "/v1/workers", "/metrics", "/v1/tasks/t1",
            "/v1/workers/w1", "/subjects"})
    void headWithoutATokenIs401(String path) {
        Api.Reply head = gateway.api.head(path);

        assertThat(head.status()).isEqualTo(401);
        assertThat(head.header("WWW-Authenticate")).startsWith("Bearer");
    }

    @ParameterizedTest(name = "HEAD {0} as the worker")
    @ValueSource(strings = {"/v1/snapshot?pool=ours", "/metrics"})
    void headWithACredentialThatMayNotReadIs403(String path) {
        assertThat(gateway.api.withToken(TestGateway.secret("worker")).head(path).status()).isEqualTo(403);
    }
}
