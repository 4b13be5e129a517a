package io.cronoq.schemas;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client of any Confluent-compatible schema registry over its REST API (java.net.http and Jackson). Ids are
 * the registry's; registrations and schemas by id are cached, listings are not. Several comma-separated URLs are
 * tried in order when one cannot be reached.
 */
public final class HttpSchemaRegistry implements SchemaRegistry {

    private static final Logger log = LoggerFactory.getLogger(HttpSchemaRegistry.class);
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json";
    private static final int NOT_FOUND = 404;

    private final List<URI> baseUrls;
    private final Duration timeout;
    private final String authorization;
    private final HttpClient client;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();
    private final Map<String, Integer> idsBySubjectAndText = new ConcurrentHashMap<>();

    /**
     * A client of the registry at {@code urls} (comma-separated, as {@code schema.registry.url}).
     *
     * @param basicAuthUserInfo {@code user:password} for HTTP basic authentication, or null
     */
    public HttpSchemaRegistry(String urls, Duration timeout, String basicAuthUserInfo) {
        this.baseUrls = parseUrls(urls);
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.authorization = basicAuthUserInfo == null || basicAuthUserInfo.isBlank() ? null
                : "Basic " + Base64.getEncoder().encodeToString(basicAuthUserInfo.getBytes(StandardCharsets.UTF_8));
        this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** A client of the registry at {@code urls} with a 30 s timeout and no authentication. */
    public HttpSchemaRegistry(String urls) {
        this(urls, Duration.ofSeconds(30), null);
    }

    private static List<URI> parseUrls(String urls) {
        if (urls == null || urls.isBlank()) {
            throw new IllegalArgumentException("schema.registry.url is empty: give the registry's base URL, "
                    + "e.g. http://localhost:8081");
        }
        List<URI> parsed = new ArrayList<>();
        for (String url : urls.split(",")) {
            String trimmed = url.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            URI uri = URI.create(trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed);
            if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
                throw new IllegalArgumentException("schema.registry.url '" + trimmed + "' is not an http(s) URL");
            }
            parsed.add(uri);
        }
        return List.copyOf(parsed);
    }

    @Override
    public int register(String subject, Schema schema) {
        String text = SchemaIds.text(schema);
        String key = subject + '\u0000' + text;
        Integer cached = idsBySubjectAndText.get(key);
        if (cached != null) {
            return cached;
        }
        String body;
        try {
            body = json.writeValueAsString(Map.of("schema", text));
        } catch (JsonProcessingException e) {
            throw new SchemaRegistryException("Cannot encode the schema of " + schema.getFullName() + " as JSON", e);
        }
        Reply reply = send("POST", "/subjects/" + segment(subject) + "/versions", body);
        if (!reply.ok()) {
            throw reply.failure("register a schema under subject '" + subject + "'");
        }
        int id = reply.json().path("id").asInt(-1);
        if (id < 0) {
            throw new SchemaRegistryException("The registry answered a registration under '" + subject
                    + "' without an id: " + reply.body);
        }
        idsBySubjectAndText.put(key, id);
        schemasById.putIfAbsent(id, schema);
        return id;
    }

    @Override
    public Optional<Schema> byId(int id) {
        Schema cached = schemasById.get(id);
        if (cached != null) {
            return Optional.of(cached);
        }
        Reply reply = send("GET", "/schemas/ids/" + id, null);
        if (reply.status == NOT_FOUND) {
            return Optional.empty();
        }
        if (!reply.ok()) {
            throw reply.failure("fetch schema id " + id);
        }
        Schema schema = parse(reply.json().path("schema").asText(), "schema id " + id);
        Schema previous = schemasById.putIfAbsent(id, schema);
        return Optional.of(previous == null ? schema : previous);
    }

    @Override
    public List<String> subjects() {
        Reply reply = send("GET", "/subjects", null);
        if (!reply.ok()) {
            throw reply.failure("list subjects");
        }
        List<String> subjects = new ArrayList<>();
        reply.json().forEach(node -> subjects.add(node.asText()));
        subjects.sort(null);
        return subjects;
    }

    @Override
    public List<Integer> versions(String subject) {
        Reply reply = send("GET", "/subjects/" + segment(subject) + "/versions", null);
        if (reply.status == NOT_FOUND) {
            return List.of();
        }
        if (!reply.ok()) {
            throw reply.failure("list the versions of subject '" + subject + "'");
        }
        List<Integer> versions = new ArrayList<>();
        reply.json().forEach(node -> versions.add(node.asInt()));
        versions.sort(null);
        return versions;
    }

    @Override
    public Optional<RegisteredSchema> version(String subject, int version) {
        return fetchVersion(subject, String.valueOf(version));
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        return fetchVersion(subject, "latest");
    }

    private Optional<RegisteredSchema> fetchVersion(String subject, String version) {
        Reply reply = send("GET", "/subjects/" + segment(subject) + "/versions/" + version, null);
        if (reply.status == NOT_FOUND) {
            return Optional.empty();
        }
        if (!reply.ok()) {
            throw reply.failure("fetch version " + version + " of subject '" + subject + "'");
        }
        JsonNode node = reply.json();
        int id = node.path("id").asInt();
        Schema schema = parse(node.path("schema").asText(), "schema id " + id);
        schemasById.putIfAbsent(id, schema);
        return Optional.of(new RegisteredSchema(node.path("subject").asText(subject), node.path("version").asInt(), id,
                schema));
    }

    private static Schema parse(String text, String what) {
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException("The registry served " + what + " as text that is not an Avro schema: "
                    + e.getMessage(), e);
        }
    }

    /** A path segment: URLEncoder encodes for forms, where a space is '+'. */
    private static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private Reply send(String method, String path, String body) {
        IOException last = null;
        for (URI base : baseUrls) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                    .timeout(timeout)
                    .header("Accept", ACCEPT)
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            if (body != null) {
                request.header("Content-Type", CONTENT_TYPE);
            }
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
            try {
                HttpResponse<String> response =
                        client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
                return new Reply(base, response.statusCode(), response.body());
            } catch (IOException e) {
                last = e;
                log.warn("Schema registry at {} unreachable for {} {}: {}", base, method, path, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException("Interrupted while calling the schema registry " + method + " "
                        + path, e);
            }
        }
        throw new SchemaRegistryException("No schema registry reachable at " + baseUrls + " for " + method + " "
                + path + ": " + last + ". Check schema.registry.url and that the registry runs.", last);
    }

    /** One HTTP answer of the registry. */
    private final class Reply {
        final URI base;
        final int status;
        final String body;

        Reply(URI base, int status, String body) {
            this.base = base;
            this.status = status;
            this.body = body;
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }

        JsonNode json() {
            try {
                return json.readTree(body);
            } catch (JsonProcessingException e) {
                throw new SchemaRegistryException("The schema registry at " + base + " answered with invalid JSON: "
                        + abbreviate(body), e);
            }
        }

        SchemaRegistryException failure(String what) {
            String message = abbreviate(body);
            try {
                JsonNode node = json.readTree(body);
                if (node != null && node.has("message")) {
                    message = node.path("error_code").asText("?") + " " + node.path("message").asText();
                }
            } catch (JsonProcessingException e) {
                // Not a Confluent error body: the raw text is the best explanation.
            }
            return new SchemaRegistryException("The schema registry at " + base + " refused to " + what + ": HTTP "
                    + status + " " + message);
        }
    }

    private static String abbreviate(String text) {
        return text == null ? "" : text.length() <= 300 ? text : text.substring(0, 300) + "...";
    }

    @Override
    public String toString() {
        return "HttpSchemaRegistry" + Arrays.toString(baseUrls.toArray());
    }
}
