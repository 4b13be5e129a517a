package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.cronoq.scheduler.auth.Credential;
import io.cronoq.scheduler.auth.Credentials;
import io.cronoq.scheduler.auth.Role;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.javalin.Javalin;
import io.javalin.testtools.HttpClient;
import io.javalin.testtools.HttpHeaders;
import io.javalin.testtools.JavalinTest;
import io.javalin.testtools.Response;
import io.javalin.testtools.TestCase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest.BodyPublisher;
import java.net.http.HttpRequest.BodyPublishers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A gateway started in-process on a free port, with no broker behind it: its readers read nothing
 * (every read is 503, see {@link NoState}) and its writer refuses, so what these gateways answer is
 * the front door's own work — authentication, the request's headers and the body's parsing.
 * {@link #SECURED} has an admin, a viewer, a submitter in pool {@code ours}, a worker credential, a submitter
 * {@code ci} in every pool bound to the tenant {@code research} and an admin {@code keeper} of pool {@code ours};
 * the secret of each is {@link #secret}. {@link #test} runs a gateway over a {@link MemoryState} in Javalin's test
 * server instead, to check what the routes answer and write.
 */
final class TestGateway implements AutoCloseable {

    static final Credentials SECURED = Credentials.of(List.of(
            credential("admin", Role.ADMIN, null),
            credential("viewer", Role.VIEWER, null),
            credential("submitter", Role.SUBMITTER, Set.of("ours")),
            credential("worker", Role.WORKER, Set.of("ours")),
            credential("ci", Role.SUBMITTER, null, "research"),
            credential("keeper", Role.ADMIN, Set.of("ours"))));

    /** The instant the clock of {@link #context(Credentials, StateReader, Commands)} is stopped at. */
    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    /** What {@code /metrics} of a test gateway serves. */
    static final String METRICS = "# metrics\n";

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
        return new GatewayContext(new NoState(), new NoState(), RecordingCommands.refusing(),
                new InMemorySchemaRegistry(), () -> METRICS, Clock.systemUTC(), credentials);
    }

    /**
     * A gateway's context over {@code state} (as the cluster's reader and this instance's own), writing through
     * {@code commands}, on a clock stopped at {@link #NOW}; no schemas, no history.
     */
    static GatewayContext context(Credentials credentials, StateReader state, Commands commands) {
        return new GatewayContext(state, state, commands, new InMemorySchemaRegistry(), () -> METRICS,
                Clock.fixed(NOW, ZoneOffset.UTC), credentials);
    }

    /**
     * Runs {@code test} on the gateway of {@code context} in Javalin's test server (JavalinTest): started on a free
     * port, its client calling it, stopped after.
     */
    static void test(GatewayContext context, TestCase test) {
        JavalinTest.test(Gateway.create(context), test);
    }

    /**
     * Calls the test server as {@code who} (a credential of {@link #SECURED}; {@code null}: no token), with the
     * body's text, if any, declared as {@code contentType} (none when null).
     */
    static Answer call(HttpClient client, String method, String path, String who, String contentType, String body) {
        BodyPublisher content = body == null ? BodyPublishers.noBody()
                : BodyPublishers.ofByteArray(body.getBytes(StandardCharsets.UTF_8));
        Response response = client.request(path, request -> {
            switch (method) {
                case "GET" -> request.get();
                case "POST" -> request.post(content);
                case "PUT" -> request.put(content);
                case "DELETE" -> request.delete(content);
                default -> throw new IllegalArgumentException("no " + method + " in these tests");
            }
            if (contentType != null) {
                request.header("Content-Type", contentType);
            }
            if (who != null) {
                request.header("Authorization", "Bearer " + secret(who));
            }
        });
        return new Answer(response.code(), response.body().string(), response.headers());
    }

    /**
     * What each caller gets for one call, as {@code who=status} in the callers' order; {@code none} calls without a
     * token.
     */
    static List<String> callStatuses(HttpClient client, String method, String path, String contentType, String body,
                                     String... callers) {
        List<String> statuses = new ArrayList<>();
        for (String who : callers) {
            Answer answer = call(client, method, path, who.equals("none") ? null : who, contentType, body);
            statuses.add(who + "=" + answer.status());
        }
        return statuses;
    }

    /** As {@link #callStatuses} for {@code GET path}. */
    static List<String> statuses(HttpClient client, String path, String... callers) {
        return callStatuses(client, "GET", path, null, null, callers);
    }

    /** Asserts that {@code answer} is a 200 and returns its body, parsed. */
    static JsonNode ok(Answer answer) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(200);
        return answer.json();
    }

    /** Asserts that {@code answer} is a 202 naming {@code id} in {@code pool} (a write on its topic) and returns it. */
    static JsonNode accepted(Answer answer, String id, String pool) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(202);
        assertThat(answer.json().path("id").asText()).isEqualTo(id);
        assertThat(answer.json().path("pool").asText()).isEqualTo(pool);
        return answer.json();
    }

    /**
     * Asserts that {@code answer} is the API's refusal with {@code status} (and its code) naming {@code field}
     * ({@code null}: none), and returns its message.
     */
    static String refused(Answer answer, int status, String field) {
        assertThat(answer.status()).as(answer.toString()).isEqualTo(status);
        assertThat(answer.error("code")).as(answer.toString()).isEqualTo(codeOf(status).name());
        assertThat(answer.error("field")).as(answer.toString()).isEqualTo(field);
        return answer.error("message");
    }

    private static ErrorCode codeOf(int status) {
        for (ErrorCode code : ErrorCode.values()) {
            if (code.status() == status) {
                return code;
            }
        }
        throw new IllegalArgumentException("no error code answers " + status);
    }

    /** {@code GET path} as {@code who}. */
    static Answer get(HttpClient client, String path, String who) {
        return call(client, "GET", path, who, null, null);
    }

    /** One answer of the test server: its status, body text and headers. */
    record Answer(int status, String text, HttpHeaders headers) {

        JsonNode json() {
            try {
                return Api.JSON.readTree(text);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + text, e);
            }
        }

        /** A part of the API's error body: {@code code}, {@code message} or {@code field}. */
        String error(String part) {
            return json().path("error").path(part).asText(null);
        }

        /** The header's first value, or {@code null}. */
        String header(String name) {
            List<String> values = headers.get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        @Override
        public String toString() {
            return status + " " + text;
        }
    }

    static String secret(String name) {
        return name + "-secret-0123456789";
    }

    private static Credential credential(String name, Role role, Set<String> pools) {
        return credential(name, role, pools, null);
    }

    private static Credential credential(String name, Role role, Set<String> pools, String tenant) {
        return new Credential(name, role, secret(name).getBytes(StandardCharsets.UTF_8), pools, Set.of(), null, tenant);
    }

    @Override
    public void close() {
        app.stop();
    }
}
