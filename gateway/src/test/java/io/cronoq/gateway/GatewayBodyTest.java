package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.scheduler.auth.Credentials;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A submission's body over HTTP: bytes that are not UTF-8, content after the object, numbers no
 * field can hold and a body over the limit are each a 4xx naming what to fix — never a 500, never
 * a silently altered task.
 */
class GatewayBodyTest {

    private static TestGateway gateway;

    @BeforeAll
    static void start() {
        gateway = TestGateway.start(Credentials.none());
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    private static Api.Reply post(byte[] body) {
        return gateway.api.send("POST", "/v1/tasks", "application/json", body);
    }

    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            byte[] b = part instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) part;
            out.writeBytes(b);
        }
        return out.toByteArray();
    }

    private static final byte[] NOT_UTF8 = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, 'a', (byte) 0xE2, (byte) 0x82, 'b',
            (byte) 0x80};

    @Test
    void aPayloadThatIsNotUtf8IsRefusedPointingAtPayloadBase64() {
        Api.Reply reply = post(bytes("{\"pool\":\"ours\",\"payload\":\"", NOT_UTF8, "\"}"));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("code").asText()).isEqualTo("INVALID_ARGUMENT");
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("payload");
        assertThat(reply.json().path("error").path("message").asText()).contains("UTF-8").contains("payloadBase64");
    }

    @Test
    void anEncodedSurrogateIsNotUtf8Either() {
        byte[] surrogate = {(byte) 0xED, (byte) 0xA0, (byte) 0x80};
        Api.Reply reply = post(bytes("{\"pool\":\"ours\",\"payload\":\"a", surrogate, "\"}"));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("payload");
    }

    @Test
    void otherTextThatIsNotUtf8IsRefusedNamingItsField() {
        Api.Reply reply = post(bytes("{\"pool\":\"ours\",\"labels\":{\"zone\":\"", NOT_UTF8, "\"}}"));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("labels.zone");
        assertThat(reply.json().path("error").path("message").asText()).contains("UTF-8");
    }

    @Test
    void bytesThatAreNotUtf8OutsideAnyStringAreRefusedForTheBody() {
        Api.Reply reply = post(bytes("{\"pool\":\"ours\"", new byte[] {(byte) 0xFF}, "}"));

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("body");
        assertThat(reply.json().path("error").path("message").asText()).contains("UTF-8");
    }

    @Test
    void contentAfterTheObjectIsRefused() {
        Api.Reply reply = gateway.api.post("/v1/tasks", "{\"pool\":\"a\"} {\"pool\":\"b\"}");

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo("body");
        assertThat(reply.json().path("error").path("message").asText()).contains("one JSON object");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"resources.cpu", "resources.memory", "resources.disk", "resources.gpu", "maxAttempts",
            "prefer[0].weight"})
    void numbersNoFieldCanHoldAre400NamingTheField(String field) {
        for (String number : new String[] {"1e400", "-1e400", "1e-400", "123456789012345678901234567890",
                "1e9999999999", "0.0000000000000000000001", "NaN", "Infinity"}) {
            String body = switch (field) {
                case "resources.cpu" -> "{\"pool\":\"ours\",\"resources\":{\"cpu\":" + number + "}}";
                case "resources.memory" -> "{\"pool\":\"ours\",\"resources\":{\"memory\":" + number + "}}";
                case "resources.disk" -> "{\"pool\":\"ours\",\"resources\":{\"disk\":" + number + "}}";
                case "resources.gpu" -> "{\"pool\":\"ours\",\"resources\":{\"gpu\":" + number + "}}";
                case "maxAttempts" -> "{\"pool\":\"ours\",\"maxAttempts\":" + number + "}";
                default -> "{\"pool\":\"ours\",\"prefer\":[{\"labels\":{\"a\":\"b\"},\"weight\":" + number + "}]}";
            };

            Api.Reply reply = gateway.api.post("/v1/tasks", body);

            assertThat(reply.status()).as(body + " -> " + reply).isEqualTo(400);
            assertThat(reply.json().path("error").path("code").asText()).isEqualTo("INVALID_ARGUMENT");
            assertThat(reply.json().path("error").path("field").asText()).as(body).isEqualTo(field);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"priority", "timeout", "backoff", "maxBackoff", "tolerance", "deadline", "notBefore",
            "startAt", "id", "pool", "payload", "payloadBase64"})
    void aHostileNumberWhereTextBelongsIs400NamingTheField(String field) {
        Api.Reply reply = gateway.api.post("/v1/tasks", "{\"pool\":\"ours\",\"" + field + "\":1e400}");

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo(field);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"timeout", "backoff", "maxBackoff"})
    void aDurationNoClockCanHoldIs400NamingTheField(String field) {
        Api.Reply reply = gateway.api.post("/v1/tasks",
                "{\"pool\":\"ours\",\"" + field + "\":\"PT99999999999999999999H\"}");

        assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
        assertThat(reply.json().path("error").path("field").asText()).isEqualTo(field);
    }

    @Test
    void aBodyOverTheLimitIs413StatingTheLimit() {
        Api.Reply reply = gateway.api.post("/v1/tasks",
                "{\"pool\":\"ours\",\"payload\":\"" + "x".repeat(1_100_000) + "\"}");

        assertThat(reply.status()).isEqualTo(413);
        assertThat(reply.json().path("error").path("code").asText()).isEqualTo("PAYLOAD_TOO_LARGE");
        assertThat(reply.json().path("error").path("message").asText()).contains("1000000 bytes");
    }

    @Test
    void aChunkedBodyOverTheLimitIs413Too() {
        Api.Reply reply = gateway.api.postChunked("/v1/tasks",
                ("{\"pool\":\"ours\",\"payload\":\"" + "x".repeat(1_100_000) + "\"}").getBytes(StandardCharsets.UTF_8));

        assertThat(reply.status()).isEqualTo(413);
        assertThat(reply.json().path("error").path("message").asText()).contains("1000000 bytes");
    }

    @Test
    void aTaskIsBoundedInPartsAndEachLimitIsStated() {
        StringBuilder labels = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            labels.append(i == 0 ? "" : ",").append("\"l").append(i).append("\":\"v\"");
        }
        Api.Reply manyLabels = gateway.api.post("/v1/tasks", "{\"pool\":\"ours\",\"labels\":{" + labels + "}}");
        assertThat(manyLabels.status()).as(manyLabels.toString()).isEqualTo(400);
        assertThat(manyLabels.json().path("error").path("field").asText()).isEqualTo("labels");
        assertThat(manyLabels.json().path("error").path("message").asText()).contains("at most 64");

        String prefer = "{\"labels\":{\"a\":\"b\"}},".repeat(17);
        Api.Reply manyPreferences = gateway.api.post("/v1/tasks",
                "{\"pool\":\"ours\",\"prefer\":[" + prefer.substring(0, prefer.length() - 1) + "]}");
        assertThat(manyPreferences.status()).as(manyPreferences.toString()).isEqualTo(400);
        assertThat(manyPreferences.json().path("error").path("field").asText()).isEqualTo("prefer");
        assertThat(manyPreferences.json().path("error").path("message").asText()).contains("at most 16");

        Api.Reply longReason = gateway.api.delete("/v1/tasks/t1?reason=" + "x".repeat(2000));
        assertThat(longReason.status()).as(longReason.toString()).isEqualTo(400);
        assertThat(longReason.json().path("error").path("field").asText()).isEqualTo("reason");
        assertThat(longReason.json().path("error").path("message").asText()).contains("at most 1024");
    }
}
