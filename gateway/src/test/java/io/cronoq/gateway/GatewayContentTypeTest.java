package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.auth.Credentials;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A call that changes state declares a JSON body, open or secured: a text/plain or form POST — what
 * a web page may send cross-site without a preflight — is 415, whatever its body says.
 */
class GatewayContentTypeTest {

    private static TestGateway open;
    private static TestGateway secured;

    @BeforeAll
    static void start() {
        open = TestGateway.start(Credentials.none());
        secured = TestGateway.start(TestGateway.SECURED);
    }

    @AfterAll
    static void stop() {
        open.close();
        secured.close();
    }

    static Stream<Arguments> undeclaredBodies() {
        String task = "{\"pool\":\"ours\"}";
        return Stream.of(
                Arguments.of("POST", "/v1/tasks", "text/plain", task),
                Arguments.of("POST", "/v1/tasks", "text/plain; charset=utf-8", task),
                Arguments.of("POST", "/v1/tasks", "application/x-www-form-urlencoded", task),
                Arguments.of("POST", "/v1/tasks", "multipart/form-data; boundary=x", task),
                Arguments.of("POST", "/v1/tasks", "application/jsonp", task),
                Arguments.of("POST", "/v1/tasks", null, task),
                Arguments.of("POST", "/v1/workers/w1/drain", "text/plain", ""),
                Arguments.of("POST", "/v1/workers/w1/drain", null, null),
                Arguments.of("DELETE", "/v1/tasks/t1", "text/plain", "{}"));
    }

    @ParameterizedTest(name = "{0} {1} as {2}")
    @MethodSource("undeclaredBodies")
    void aStateChangingCallMustDeclareJson(String method, String path, String contentType, String body) {
        byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        for (Api caller : new Api[] {open.api, secured.api.withToken(TestGateway.secret("admin"))}) {
            Api.Reply reply = caller.send(method, path, contentType, bytes);

            assertThat(reply.status()).as(reply.toString()).isEqualTo(415);
            assertThat(reply.json().path("error").path("code").asText()).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
            assertThat(reply.json().path("error").path("message").asText())
                    .contains("Content-Type: application/json");
            assertThat(reply.json().path("error").path("field").asText()).isEqualTo("Content-Type");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"application/json", "application/json; charset=utf-8", "Application/JSON;charset=\"UTF-8\""})
    void jsonWithOrWithoutAUtf8CharsetReachesTheRoute(String contentType) {
        Api.Reply reply = open.api.send("POST", "/v1/tasks", contentType,
                "{\"pool\":\"ours\",\"priority\":\"nope\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(reply.status()).as("the parser answers: " + reply).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("priority");
    }

    @Test
    void aDrainDeclaredJsonWithNoBodyReachesTheRoute() {
        Api.Reply reply = open.api.send("POST", "/v1/workers/w1/drain", "application/json", null);

        assertThat(reply.status()).as("the route answers, its reader is down: " + reply).isEqualTo(503);
    }

    @Test
    void aDeleteWithoutABodyNeedsNoContentType() {
        Api.Reply reply = open.api.delete("/v1/tasks/t1");

        assertThat(reply.status()).as("the route answers, its reader is down: " + reply).isEqualTo(503);
    }

    @Test
    void aCharsetOtherThanUtf8IsRefused() {
        Api.Reply reply = open.api.send("POST", "/v1/tasks", "application/json; charset=iso-8859-1",
                "{\"pool\":\"ours\"}".getBytes(StandardCharsets.ISO_8859_1));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(415);
        assertThat(reply.json().path("error").path("message").asText()).contains("UTF-8");
    }

    @Test
    void anUnauthenticatedCallIs401BeforeItsContentTypeIsLookedAt() {
        Api.Reply reply = secured.api.send("POST", "/v1/tasks", "text/plain",
                "{\"pool\":\"ours\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(reply.status()).isEqualTo(401);
    }
}
