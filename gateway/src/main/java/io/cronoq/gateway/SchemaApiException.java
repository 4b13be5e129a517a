package io.cronoq.gateway;

/**
 * An error on the Confluent-compatible schema paths, answered in the Confluent shape
 * {@code {"error_code":40403,"message":…}} so standard registry clients understand it.
 */
public final class SchemaApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Subject not found. */
    public static final int SUBJECT_NOT_FOUND = 40401;
    /** Version not found. */
    public static final int VERSION_NOT_FOUND = 40402;
    /** Schema not found. */
    public static final int SCHEMA_NOT_FOUND = 40403;
    /** Invalid version. */
    public static final int INVALID_VERSION = 42202;
    /** The backing registry could not answer. */
    public static final int REGISTRY_ERROR = 50001;

    private final int status;
    private final int errorCode;

    public SchemaApiException(int status, int errorCode, String message) {
        super(message);
        this.status = status;
        this.errorCode = errorCode;
    }

    public int status() {
        return status;
    }

    public int errorCode() {
        return errorCode;
    }
}
