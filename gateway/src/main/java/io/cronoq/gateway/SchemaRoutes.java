package io.cronoq.gateway;

import io.cronoq.schemas.RegisteredSchema;
import io.cronoq.schemas.SchemaRegistry;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;

/**
 * The Confluent schema registry's read paths over cronoq's registry, with its media type and
 * error codes, so standard Kafka tools ({@code kafka-avro-console-consumer}, Connect, ksqlDB) can
 * decode every topic.
 */
record SchemaRoutes(SchemaRegistry registry) {

    /** {@code GET /schemas/ids/{id}}: {@code {"schema":"…"}}. */
    void byId(Context ctx) {
        int id = number(ctx.pathParam("id"), SchemaApiException.SCHEMA_NOT_FOUND, "schema id");
        Schema schema = registry.byId(id).orElseThrow(() -> new SchemaApiException(404,
                SchemaApiException.SCHEMA_NOT_FOUND, "Schema " + id + " not found"));
        write(ctx, Map.of("schema", schema.toString()));
    }

    /** {@code GET /subjects}. */
    void subjects(Context ctx) {
        write(ctx, registry.subjects());
    }

    /** {@code GET /subjects/{subject}/versions}. */
    void versions(Context ctx) {
        String subject = ctx.pathParam("subject");
        List<Integer> versions = registry.versions(subject);
        if (versions.isEmpty()) {
            throw subjectNotFound(subject);
        }
        write(ctx, versions);
    }

    /** {@code GET /subjects/{subject}/versions/{version|latest}}. */
    void version(Context ctx) {
        String subject = ctx.pathParam("subject");
        String text = ctx.pathParam("version");
        RegisteredSchema found;
        if (text.equals("latest")) {
            found = registry.latest(subject).orElseThrow(() -> subjectNotFound(subject));
        } else {
            int version = number(text, SchemaApiException.INVALID_VERSION, "version");
            if (version < 1) {
                throw new SchemaApiException(422, SchemaApiException.INVALID_VERSION, "The specified version '" + text
                        + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
            }
            found = registry.version(subject, version).orElseThrow(() -> registry.versions(subject).isEmpty()
                    ? subjectNotFound(subject)
                    : new SchemaApiException(404, SchemaApiException.VERSION_NOT_FOUND, "Version " + version
                            + " not found."));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("subject", found.subject());
        body.put("version", found.version());
        body.put("id", found.id());
        body.put("schema", found.schema().toString());
        write(ctx, body);
    }

    private static int number(String text, int errorCode, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            int status = errorCode == SchemaApiException.INVALID_VERSION ? 422 : 404;
            String message = errorCode == SchemaApiException.INVALID_VERSION
                    ? "The specified version '" + text + "' is not a valid version id. Allowed values are between "
                            + "[1, 2^31-1] and the string \"latest\""
                    : "Schema " + text + " not found (a " + what + " is a whole number)";
            throw new SchemaApiException(status, errorCode, message);
        }
    }

    private static SchemaApiException subjectNotFound(String subject) {
        return new SchemaApiException(404, SchemaApiException.SUBJECT_NOT_FOUND, "Subject '" + subject + "' not found.");
    }

    private static void write(Context ctx, Object body) {
        ctx.contentType(ErrorMapping.SCHEMA_REGISTRY_JSON).result(Json.MAPPER.valueToTree(body).toString());
    }
}
