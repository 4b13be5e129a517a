package io.cronoq.gateway;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The one JSON error shape of the API: {@code {"error":{"code":…,"message":…,"field":…}}}.
 *
 * @param error the error
 */
public record ErrorBody(Detail error) {

    /** Builds the body of an error. */
    public static ErrorBody of(ErrorCode code, String message, String field) {
        return new ErrorBody(new Detail(code.name(), message, field));
    }

    /** What went wrong; {@code field} only when one field is to blame. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Detail(String code, String message, String field) {}
}
