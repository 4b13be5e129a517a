package io.cronoq.schemas.rules;

import java.util.Optional;

import java.util.Objects;

/**
 * One broken input rule: the field that is wrong and a message that says what is allowed. The
 * scheduler journals it as {@code InputRejected}, the gateway answers it as HTTP 400, the client
 * throws it as {@link InvalidInputException}: the same words everywhere.
 *
 * @param field   the offending field, e.g. {@code pool}, {@code slots}, {@code labels.gpu}
 * @param message what was wrong and what is allowed
 */
public record Violation(String field, String message) {

    public Violation {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }

    /** Throws this violation as an {@link InvalidInputException}. */
    public InvalidInputException toException() {
        return new InvalidInputException(this);
    }

    /** The first of {@code checks} that found a violation, or empty when none did. */
    @SafeVarargs
    public static Optional<Violation> first(Optional<Violation>... checks) {
        for (Optional<Violation> check : checks) {
            if (check.isPresent()) {
                return check;
            }
        }
        return Optional.empty();
    }
}
