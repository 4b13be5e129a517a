package io.cronoq.gateway;

/** The error codes of the API and the HTTP status each answers with. */
public enum ErrorCode {
    INVALID_ARGUMENT(400),
    UNAUTHENTICATED(401),
    PERMISSION_DENIED(403),
    NOT_FOUND(404),
    /** A body larger than the gateway reads; the message states the limit. */
    PAYLOAD_TOO_LARGE(413),
    /** A call that changes state, or carries a body, without {@code Content-Type: application/json}. */
    UNSUPPORTED_MEDIA_TYPE(415),
    /** A bug, never a user's mistake: logged with its stack trace, answered without it. */
    INTERNAL(500),
    UNAVAILABLE(503);

    private final int status;

    ErrorCode(int status) {
        this.status = status;
    }

    /** The HTTP status of this code. */
    public int status() {
        return status;
    }
}
