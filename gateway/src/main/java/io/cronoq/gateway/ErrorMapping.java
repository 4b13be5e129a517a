package io.cronoq.gateway;

import io.cronoq.schemas.SchemaRegistryException;
import io.cronoq.schemas.rules.Rules;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps every failure, once, to its answer: the API's {@link ErrorBody} (with {@code Retry-After}
 * on UNAVAILABLE), or the Confluent error shape on the schema paths. No answer carries a stack trace.
 */
final class ErrorMapping {

    private static final Logger log = LoggerFactory.getLogger(ErrorMapping.class);
    static final String SCHEMA_REGISTRY_JSON = "application/vnd.schemaregistry.v1+json";

    private ErrorMapping() {}

    static void register(RoutesConfig routes) {
        routes.exception(ApiException.class, (e, ctx) -> write(ctx, e.code(), e.getMessage(), e.field()));
        routes.exception(InvalidStateStoreException.class, (e, ctx) -> write(ctx, ErrorCode.UNAVAILABLE,
                "the scheduler's stores are not queryable now (" + e.getMessage() + "); they are restoring or moving",
                null));
        routes.exception(SchemaRegistryException.class, (e, ctx) -> {
            if (ctx.path().startsWith("/schemas/") || ctx.path().startsWith("/subjects")) {
                schemaError(ctx, 500, SchemaApiException.REGISTRY_ERROR, e.getMessage());
            } else {
                write(ctx, ErrorCode.UNAVAILABLE, "the schema registry cannot answer: " + e.getMessage(), null);
            }
        });
        routes.exception(SchemaApiException.class, (e, ctx) -> schemaError(ctx, e.status(), e.errorCode(),
                e.getMessage()));
        routes.exception(HttpResponseException.class, (e, ctx) -> {
            ErrorCode code = switch (e.getStatus()) {
                case 400 -> ErrorCode.INVALID_ARGUMENT;
                case 401 -> ErrorCode.UNAUTHENTICATED;
                case 403 -> ErrorCode.PERMISSION_DENIED;
                case 404 -> ErrorCode.NOT_FOUND;
                case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
                case 503 -> ErrorCode.UNAVAILABLE;
                default -> null;
            };
            if (code == null) {
                ctx.status(e.getStatus()).json(ErrorBody.of(ErrorCode.INVALID_ARGUMENT, e.getMessage(), null));
                return;
            }
            String message = switch (code) {
                case NOT_FOUND -> "no such path: " + ctx.method() + " " + ctx.path()
                        + "; the API is described at /openapi.json";
                case PAYLOAD_TOO_LARGE -> "the body is larger than the gateway reads: at most " + Gateway.MAX_BODY_BYTES
                        + " bytes; a task's payload is at most " + Rules.MAX_PAYLOAD_BYTES + " bytes (512 KiB), so keep "
                        + "large inputs in object storage and submit a reference";
                default -> e.getMessage();
            };
            write(ctx, code, message, null);
        });
        routes.exception(Exception.class, (e, ctx) -> {
            log.error("{} {} failed", ctx.method(), ctx.path(), e);
            write(ctx, ErrorCode.INTERNAL, "the gateway failed to answer (" + e.getClass().getSimpleName()
                    + "); this is a bug, the gateway's log has the details", null);
        });
    }

    static void write(Context ctx, ErrorCode code, String message, String field) {
        if (code == ErrorCode.UNAVAILABLE) {
            ctx.header("Retry-After", Integer.toString(ApiException.RETRY_AFTER_SECONDS));
        }
        ctx.status(code.status()).json(ErrorBody.of(code, message, field));
    }

    private static void schemaError(Context ctx, int status, int errorCode, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error_code", errorCode);
        body.put("message", message);
        ctx.status(status).contentType(SCHEMA_REGISTRY_JSON).result(Json.MAPPER.valueToTree(body).toString());
    }
}
