package io.cronoq.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A plain HTTP client on one gateway, as a user would call it: java.net.http plus Jackson. */
final class Api {

    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final String base;
    private final String authorization;

    Api(String base) {
        this(base, null, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
    }

    private Api(String base, String authorization, HttpClient http) {
        this.base = base;
        this.authorization = authorization;
        this.http = http;
    }

    /** An HTTPS gateway whose certificate {@code trust} accepts. */
    static Api overTls(String base, javax.net.ssl.SSLContext trust) {
        return new Api(base, null, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(trust)
                .build());
    }

    /** The same gateway, called with {@code Authorization: Bearer <secret>}. */
    Api withToken(String secret) {
        return new Api(base, "Bearer " + secret, http);
    }

    /** One answer: status, headers, body text and (when JSON) the body parsed. */
    record Reply(int status, HttpResponse<String> raw) {
        String text() {
            return raw.body();
        }

        JsonNode json() {
            try {
                return JSON.readTree(raw.body());
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + raw.body(), e);
            }
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        @Override
        public String toString() {
            return status + " " + raw.body();
        }
    }

    Reply get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    Reply post(String path, String json) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
    }

    Reply put(String path, String json) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
    }

    Reply delete(String path) {
        return send(HttpRequest.newBuilder(uri(path)).DELETE());
    }

    Reply head(String path) {
        return send(HttpRequest.newBuilder(uri(path)).method("HEAD", HttpRequest.BodyPublishers.noBody()));
    }

    /**
     * Any method, with the body's bytes exactly as given (none: {@code Content-Length: 0}), {@code contentType} (none
     * when null) and more headers as name, value pairs ({@code "Origin", "https://…"}).
     */
    Reply send(String method, String path, String contentType, byte[] body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).method(method,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    /** A POST whose body is sent chunked, with no Content-Length. */
    Reply postChunked(String path, byte[] body) {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))));
    }

    private URI uri(String path) {
        return URI.create(base + path);
    }

    private Reply send(HttpRequest.Builder request) {
        try {
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
            HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(response.statusCode(), response);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
