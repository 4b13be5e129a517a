package io.cronoq.gateway;

import java.util.Objects;

/**
 * A request that cannot be answered as asked, with the code, the message a user can act on and,
 * for an invalid argument, the field; {@link ErrorMapping} turns it into the one JSON error shape.
 */
public final class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Seconds a client should wait before retrying an {@link ErrorCode#UNAVAILABLE} answer. */
    public static final int RETRY_AFTER_SECONDS = 1;

    private final ErrorCode code;
    private final String field;

    public ApiException(ErrorCode code, String message, String field, Throwable cause) {
        super(Objects.requireNonNull(message, "message"), cause);
        this.code = Objects.requireNonNull(code, "code");
        this.field = field;
    }

    /** 400: {@code field} is wrong; the message says how. */
    public static ApiException invalid(String field, String message) {
        return new ApiException(ErrorCode.INVALID_ARGUMENT, message, field, null);
    }

    /** 404. */
    public static ApiException notFound(String message) {
        return new ApiException(ErrorCode.NOT_FOUND, message, null, null);
    }

    /** 404: what {@code field} names does not exist; the message says what would make it. */
    public static ApiException notFound(String field, String message) {
        return new ApiException(ErrorCode.NOT_FOUND, message, field, null);
    }

    /** 503 with a retry hint: the state is moving (restoring, rebalancing) or a peer did not answer. */
    public static ApiException unavailable(String message, Throwable cause) {
        return new ApiException(ErrorCode.UNAVAILABLE, message, null, cause);
    }

    public ErrorCode code() {
        return code;
    }

    /** The offending field, or {@code null}. */
    public String field() {
        return field;
    }
}
