package io.cronoq.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.WorkerEvent;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP client against a tiny in-test server that answers like a Confluent schema registry. */
class HttpSchemaRegistryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeConfluentRegistry fake = new FakeConfluentRegistry();
    private HttpServer server;
    private HttpSchemaRegistry registry;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", fake::handle);
        server.start();
        registry = new HttpSchemaRegistry(url(), Duration.ofSeconds(5), "alice:secret");
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    @Test
    void registerPostsTheSchemaWithTheConfluentContentTypeAndCachesTheId() throws IOException {
        int id = registry.register("cronoq.submissions-value", SubmissionEvent.getClassSchema());
        int again = registry.register("cronoq.submissions-value", SubmissionEvent.getClassSchema());

        assertThat(again).isEqualTo(id);
        assertThat(fake.requests).containsExactly("POST /subjects/cronoq.submissions-value/versions");
        assertThat(fake.contentTypes).containsExactly("application/vnd.schemaregistry.v1+json");
        assertThat(fake.authorizations).containsOnly("Basic YWxpY2U6c2VjcmV0");
        JsonNode body = JSON.readTree(fake.bodies.get(0));
        assertThat(new Schema.Parser().parse(body.get("schema").asText())).isEqualTo(SubmissionEvent.getClassSchema());
    }

    @Test
    void byIdFetchesOnceAndUnknownIdsAreEmpty() {
        int id = fake.add("cronoq.workers-value", WorkerEvent.getClassSchema());
        HttpSchemaRegistry fresh = new HttpSchemaRegistry(url());

        assertThat(fresh.byId(id)).contains(WorkerEvent.getClassSchema());
        assertThat(fresh.byId(id)).contains(WorkerEvent.getClassSchema());
        assertThat(fresh.byId(99_999)).isEmpty();
        assertThat(fake.requests).containsExactly("GET /schemas/ids/" + id, "GET /schemas/ids/99999");
    }

    @Test
    void subjectsVersionsAndLatestFollowTheConfluentPaths() {
        int first = fake.add("cronoq.workers-value", WorkerEvent.getClassSchema());
        int second = fake.add("cronoq.workers-value", SubmissionEvent.getClassSchema());
        fake.add("a b-value", SubmissionEvent.getClassSchema());

        assertThat(registry.subjects()).containsExactly("a b-value", "cronoq.workers-value");
        assertThat(registry.versions("cronoq.workers-value")).containsExactly(1, 2);
        assertThat(registry.version("cronoq.workers-value", 1)).hasValueSatisfying(v -> {
            assertThat(v.id()).isEqualTo(first);
            assertThat(v.version()).isEqualTo(1);
            assertThat(v.schema()).isEqualTo(WorkerEvent.getClassSchema());
        });
        assertThat(registry.latest("cronoq.workers-value")).hasValueSatisfying(v -> assertThat(v.id()).isEqualTo(second));
        assertThat(registry.versions("a b-value")).containsExactly(1);
        assertThat(fake.requests).contains("GET /subjects/a%20b-value/versions");
    }

    @Test
    void unknownSubjectsAndVersionsAreEmpty() {
        assertThat(registry.versions("nope")).isEmpty();
        assertThat(registry.latest("nope")).isEmpty();
        assertThat(registry.version("nope", 3)).isEmpty();
    }

    @Test
    void serdeWritesAndReadsThroughTheHttpRegistry() {
        AvroSerde<SubmissionEvent> writer = AvroSerde.of(SubmissionEvent.class, registry);
        AvroSerde<SubmissionEvent> reader = AvroSerde.of(SubmissionEvent.class, new HttpSchemaRegistry(url()));
        SubmissionEvent event = SampleRecords.everyBranchOf(SubmissionEvent.class).get(1);

        assertThat(reader.deserialize("cronoq.submissions", writer.serialize("cronoq.submissions", event)))
                .isEqualTo(event);
    }

    @Test
    void registryErrorsCarryTheConfluentMessage() {
        fake.failWith = 422;

        assertThatThrownBy(() -> registry.register("s-value", SubmissionEvent.getClassSchema()))
                .isInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 422").hasMessageContaining("42201").hasMessageContaining("Invalid schema")
                .hasMessageContaining("s-value");
    }

    @Test
    void unreachableRegistrySaysWhereItLooked() {
        server.stop(0);

        assertThatThrownBy(() -> registry.byId(1))
                .isInstanceOf(SchemaRegistryException.class)
                .isNotInstanceOf(WireFormatException.class)
                .hasMessageContaining(url()).hasMessageContaining("schema.registry.url");
    }

    @Test
    void theNextUrlIsTriedWhenTheFirstIsDown() {
        int id = fake.add("s-value", WorkerEvent.getClassSchema());
        HttpSchemaRegistry failover = new HttpSchemaRegistry("http://127.0.0.1:1," + url());

        assertThat(failover.byId(id)).contains(WorkerEvent.getClassSchema());
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Canned Confluent answers: ids from a counter, 404 with Confluent error codes for the unknown. */
    private static final class FakeConfluentRegistry {
        final List<String> requests = new CopyOnWriteArrayList<>();
        final List<String> bodies = new CopyOnWriteArrayList<>();
        final List<String> contentTypes = new CopyOnWriteArrayList<>();
        final List<String> authorizations = new CopyOnWriteArrayList<>();
        final Map<Integer, String> schemas = new ConcurrentHashMap<>();
        final Map<String, List<Integer>> subjects = new TreeMap<>();
        final AtomicInteger nextId = new AtomicInteger(100);
        volatile int failWith;

        synchronized int add(String subject, Schema schema) {
            String text = schema.toString();
            int id = schemas.entrySet().stream().filter(e -> e.getValue().equals(text)).map(Map.Entry::getKey)
                    .findFirst().orElseGet(() -> {
                        int fresh = nextId.incrementAndGet();
                        schemas.put(fresh, text);
                        return fresh;
                    });
            List<Integer> versions = subjects.computeIfAbsent(subject, s -> new CopyOnWriteArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            return id;
        }

        void handle(HttpExchange exchange) throws IOException {
            String method = exchange.getRequestMethod();
            String rawPath = exchange.getRequestURI().getRawPath();
            String path = exchange.getRequestURI().getPath();
            requests.add(method + " " + rawPath);
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            if (!body.isEmpty()) {
                bodies.add(body);
                contentTypes.add(exchange.getRequestHeaders().getFirst("Content-Type"));
            }
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            if (authorization != null) {
                authorizations.add(authorization);
            }
            if (failWith != 0) {
                reply(exchange, failWith, Map.of("error_code", failWith * 100 + 1, "message", "Invalid schema"));
                return;
            }
            String[] parts = path.substring(1).split("/");
            if (method.equals("POST") && parts.length == 3 && parts[0].equals("subjects")) {
                Schema schema = new Schema.Parser().parse(JSON.readTree(body).get("schema").asText());
                reply(exchange, 200, Map.of("id", add(parts[1], schema)));
            } else if (parts.length == 3 && parts[0].equals("schemas") && parts[1].equals("ids")) {
                String schema = schemas.get(Integer.parseInt(parts[2]));
                if (schema == null) {
                    reply(exchange, 404, Map.of("error_code", 40403, "message", "Schema not found"));
                } else {
                    reply(exchange, 200, Map.of("schema", schema));
                }
            } else if (parts.length == 1 && parts[0].equals("subjects")) {
                reply(exchange, 200, List.copyOf(subjects.keySet()));
            } else if (parts.length >= 3 && parts[0].equals("subjects")) {
                List<Integer> ids = subjects.get(parts[1]);
                if (ids == null) {
                    reply(exchange, 404, Map.of("error_code", 40401, "message", "Subject not found"));
                } else if (parts.length == 3) {
                    reply(exchange, 200, IntStream.rangeClosed(1, ids.size()).boxed().toList());
                } else {
                    int version = parts[3].equals("latest") ? ids.size() : Integer.parseInt(parts[3]);
                    if (version < 1 || version > ids.size()) {
                        reply(exchange, 404, Map.of("error_code", 40402, "message", "Version not found"));
                    } else {
                        int id = ids.get(version - 1);
                        reply(exchange, 200, Map.of("subject", parts[1], "version", version, "id", id,
                                "schema", schemas.get(id)));
                    }
                }
            } else {
                reply(exchange, 404, Map.of("error_code", 404, "message", "HTTP 404 Not Found"));
            }
        }

        private static void reply(HttpExchange exchange, int status, Object body) throws IOException {
            byte[] bytes = JSON.writeValueAsBytes(body);
            exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
