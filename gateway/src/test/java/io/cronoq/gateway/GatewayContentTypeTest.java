package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.auth.Credentials;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
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
 * A body is declared JSON, open or secured: a text/plain or form POST — what a web page may send
 * cross-site without a preflight — is 415, whatever its body says, and so is a POST without a body
 * that a web page sent. A call without a body and without a Content-Type from anything else reaches
 * its route, which answers 400 when it needs a body.
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
                Arguments.of("PUT", "/v1/pools/ours/sharing", "application/x-www-form-urlencoded", ""),
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
    void aPostWithoutABodyOrAContentTypeReachesTheRouteThatTakesNone() {
        for (Api caller : new Api[] {open.api, secured.api.withToken(TestGateway.secret("admin"))}) {
            Api.Reply empty = caller.send("POST", "/v1/workers/w1/drain", null, null);

            assertThat(empty.status()).as("Content-Length: 0, the route answers, its reader is down: " + empty)
                    .isEqualTo(503);
        }
        assertThat(rawStatusLine(open, "POST /v1/workers/w1/drain HTTP/1.1\r\nHost: localhost\r\n"
                + "Connection: close\r\n\r\n")).as("no Content-Length at all, as curl -X POST sends it")
                .isEqualTo("HTTP/1.1 503 Service Unavailable");
    }

    static Stream<Arguments> routesThatNeedABody() {
        return Stream.of(
                Arguments.of("POST", "/v1/tasks", "at least \"pool\""),
                Arguments.of("PUT", "/v1/pools/ours/tenants/research", "weight, quotas or both"),
                Arguments.of("PUT", "/v1/pools/ours/sharing", "preemption, preemptionGraceMs or both"),
                Arguments.of("PUT", "/v1/pools/ours/limits/keys", "key and max"),
                Arguments.of("PUT", "/v1/pools/ours/limits/rates/openai", "perSecond"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("routesThatNeedABody")
    void aRouteThatNeedsABodyAndGetsNoneIs400NamingWhatIsMissing(String method, String path, String holds) {
        for (Api caller : new Api[] {open.api, secured.api.withToken(TestGateway.secret("admin"))}) {
            Api.Reply reply = caller.send(method, path, null, null);

            assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
            assertThat(reply.json().path("error").path("field").asText()).isEqualTo("body");
            assertThat(reply.json().path("error").path("message").asText()).startsWith("the body is empty")
                    .contains(holds);
        }
    }

    @Test
    void aPostWithoutABodyIsReachedFromAScriptButRefusedFromAWebPage() {
        assertThat(open.api.send("POST", "/v1/workers/w1/drain", null, null, "Sec-Fetch-Site", "none").status())
                .as("typed by the user, not sent by a page").isEqualTo(503);
        for (String[] mark : new String[][] {{"Origin", "https://elsewhere.example"}, {"Origin", "null"},
                {"Sec-Fetch-Site", "cross-site"}}) {
            Api.Reply reply = open.api.send("POST", "/v1/workers/w1/drain", null, null, mark);

            assertThat(reply.status()).as(mark[0] + ": " + reply).isEqualTo(415);
            assertThat(reply.json().path("error").path("field").asText()).isEqualTo("Content-Type");
            assertThat(reply.json().path("error").path("message").asText()).contains("comes from a web page")
                    .contains(mark[0] + ": " + mark[1]).contains("Content-Type: application/json");
        }
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

    /** The status line a raw HTTP/1.1 request gets, written byte for byte as given. */
    private static String rawStatusLine(TestGateway gateway, String request) {
        try (Socket socket = new Socket("localhost", gateway.app.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void anUnauthenticatedCallIs401BeforeItsContentTypeIsLookedAt() {
        Api.Reply reply = secured.api.send("POST", "/v1/tasks", "text/plain",
                "{\"pool\":\"ours\"}".getBytes(StandardCharsets.UTF_8));

        assertThat(reply.status()).isEqualTo(401);
    }
}
