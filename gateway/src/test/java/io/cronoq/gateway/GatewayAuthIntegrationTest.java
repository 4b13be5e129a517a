package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.testkit.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bearer tokens on a real gateway: no or unknown token is 401 UNAUTHENTICATED, a role or pool the
 * credential does not have is 403 PERMISSION_DENIED, and what it may do passes through to the route.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GatewayAuthIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static final String OURS = "ours";
    private static final String THEIRS = "theirs";
    private static final Credentials CREDENTIALS = Credentials.of(List.of(
            credential("admin", Role.ADMIN, null),
            credential("viewer", Role.VIEWER, null),
            credential("submitter", Role.SUBMITTER, Set.of(OURS)),
            credential("worker", Role.WORKER, Set.of(OURS))));

    private static SchedulerNode node;

    @BeforeAll
    static void start() {
        node = SchedulerNode.start(broker, broker.uniqueName("auth") + ".", broker.uniqueName("scheduler"), 3,
                CREDENTIALS);
        await().atMost(Duration.ofSeconds(60)).until(() -> node.api.get("/readyz").status() == 200);
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static Credential credential(String name, Role role, Set<String> pools) {
        return new Credential(name, role, secret(name).getBytes(StandardCharsets.UTF_8), pools, Set.of());
    }

    private static String secret(String name) {
        return name + "-secret-0123456789";
    }

    @Test
    void noTokenOrUnknownTokenIsUnauthenticated() {
        Api.Reply none = node.api.get("/v1/snapshot");
        Api.Reply unknown = node.api.withToken("not-a-configured-secret").get("/v1/snapshot");

        assertThat(none.status()).isEqualTo(401);
        assertThat(none.json().path("error").path("code").asText()).isEqualTo("UNAUTHENTICATED");
        assertThat(none.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(unknown.status()).isEqualTo(401);
        assertThat(unknown.text()).doesNotContain("not-a-configured-secret");
    }

    @Test
    void healthReadinessAndTheApiDescriptionNeedNoToken() {
        assertThat(node.api.get("/healthz").status()).isEqualTo(200);
        assertThat(node.api.get("/readyz").status()).isEqualTo(200);
        assertThat(node.api.get("/openapi.json").status()).isEqualTo(200);
    }

    static Stream<Arguments> calls() {
        String submitOurs = "{\"pool\":\"" + OURS + "\"}";
        String submitTheirs = "{\"pool\":\"" + THEIRS + "\"}";
        return Stream.of(
                // viewer: reads everything, writes nothing
                Arguments.of("viewer", "GET", "/v1/snapshot", null, 200),
                Arguments.of("viewer", "GET", "/v1/tasks?pool=" + THEIRS, null, 200),
                Arguments.of("viewer", "GET", "/metrics", null, 200),
                Arguments.of("viewer", "POST", "/v1/tasks", submitOurs, 403),
                Arguments.of("viewer", "DELETE", "/v1/tasks/t-none?pool=" + OURS, null, 403),
                // submitter in "ours": submits, cancels and reads there only
                Arguments.of("submitter", "POST", "/v1/tasks", submitOurs, 202),
                Arguments.of("submitter", "POST", "/v1/tasks", submitTheirs, 403),
                Arguments.of("submitter", "GET", "/v1/tasks?pool=" + OURS, null, 200),
                Arguments.of("submitter", "GET", "/v1/tasks?pool=" + THEIRS, null, 403),
                Arguments.of("submitter", "GET", "/v1/tasks", null, 403),
                Arguments.of("submitter", "GET", "/v1/tasks/t-none?pool=" + OURS, null, 404),
                Arguments.of("submitter", "DELETE", "/v1/tasks/t-none?pool=" + OURS, null, 404),
                Arguments.of("submitter", "DELETE", "/v1/tasks/t-none?pool=" + THEIRS, null, 403),
                Arguments.of("submitter", "GET", "/metrics", null, 403),
                Arguments.of("submitter", "POST", "/v1/workers/w-none/drain?pool=" + OURS, null, 403),
                // worker: registers over Kafka; no HTTP reads or writes
                Arguments.of("worker", "GET", "/v1/snapshot?pool=" + OURS, null, 403),
                Arguments.of("worker", "POST", "/v1/tasks", submitOurs, 403),
                // admin: everything
                Arguments.of("admin", "POST", "/v1/tasks", submitTheirs, 202),
                Arguments.of("admin", "GET", "/v1/snapshot", null, 200),
                Arguments.of("admin", "POST", "/v1/workers/w-none/drain", null, 404),
                Arguments.of("admin", "GET", "/subjects", null, 200));
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {4}")
    @MethodSource("calls")
    void eachRoleMayDoWhatItsRoleAndPoolsAllow(String who, String method, String path, String body, int status) {
        Api api = node.api.withToken(secret(who));
        Api.Reply reply = switch (method) {
            case "GET" -> api.get(path);
            case "POST" -> api.post(path, body == null ? "" : body);
            case "DELETE" -> api.delete(path);
            default -> throw new IllegalArgumentException(method);
        };

        assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
        if (status == 403) {
            assertThat(reply.json().path("error").path("code").asText()).isEqualTo("PERMISSION_DENIED");
            assertThat(reply.json().path("error").path("message").asText()).contains(who);
        }
    }

    @Test
    void theJournalSaysWhichCredentialSubmittedAndABodyClaimingAnotherIsRefused() {
        Api submitter = node.api.withToken(secret("submitter"));
        Api.Reply claimed = submitter.post("/v1/tasks", "{\"pool\":\"" + OURS + "\",\"id\":\"stamped-1\","
                + "\"submitter\":\"mallory\"}");
        assertThat(claimed.status()).as(claimed.toString()).isEqualTo(400);
        assertThat(claimed.json().path("error").path("field").asText()).isEqualTo("submitter");
        assertThat(claimed.json().path("error").path("message").asText())
                .contains("the gateway takes it from the calling credential ('submitter')");
        assertThat(submitter.post("/v1/tasks", "{\"pool\":\"" + OURS + "\",\"id\":\"stamped-2\"}").status())
                .isEqualTo(202);

        Api admin = node.api.withToken(secret("admin"));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Api.Reply task = admin.get("/v1/tasks/stamped-2?pool=" + OURS);
            assertThat(task.status()).as(task.toString()).isEqualTo(200);
            assertThat(task.json().path("submitter").asText()).isEqualTo("submitter");
        });
        assertThat(admin.get("/v1/tasks/stamped-1?pool=" + OURS).status()).as("nothing was written").isEqualTo(404);
    }
}
