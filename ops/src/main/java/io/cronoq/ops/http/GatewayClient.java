package io.cronoq.ops.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A small client of the gateway's HTTP API for the command line. A 400 becomes an
 * {@link IllegalArgumentException} (exit 2) carrying the gateway's message and field; any other
 * error a {@link GatewayException} (exit 1) saying what failed.
 */
final class GatewayClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    GatewayClient(URI base, String token) {
        this.base = base;
        this.token = token;
    }

    JsonNode get(String path) {
        return send(request(path).GET());
    }

    JsonNode post(String path, JsonNode body) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    JsonNode put(String path, JsonNode body) {
        return send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body.toString())));
    }

    JsonNode delete(String path) {
        return send(request(path).DELETE());
    }

    static ObjectMapper json() {
        return JSON;
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT)
                .header("Accept", "application/json");
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        return builder;
    }

    private JsonNode send(HttpRequest.Builder request) {
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new GatewayException("cannot reach the gateway at " + base + " (is `./cronoq dev` or "
                    + "`cronoq scheduler` running? use --url to point elsewhere)");
        } catch (IOException e) {
            throw new GatewayException("talking to the gateway at " + base + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new GatewayException("interrupted");
        }
        JsonNode body = parse(response.body());
        if (response.statusCode() < 300) {
            return body;
        }
        JsonNode error = body.path("error");
        String message = error.path("message").asText(response.body());
        String field = error.path("field").asText("");
        if (response.statusCode() == 400) {
            throw new IllegalArgumentException(field.isEmpty() ? message : field + ": " + message);
        }
        throw new GatewayException(error.path("code").asText("HTTP " + response.statusCode()) + ": " + message);
    }

    private static JsonNode parse(String body) {
        try {
            return body == null || body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
        } catch (IOException e) {
            return JSON.createObjectNode().put("raw", body);
        }
    }

    /** The gateway answered with an error that is not the user's input, or could not be reached. */
    static final class GatewayException extends RuntimeException {
        GatewayException(String message) {
            super(message);
        }
    }
}
