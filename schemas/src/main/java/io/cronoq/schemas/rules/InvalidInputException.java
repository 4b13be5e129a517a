package io.cronoq.schemas.rules;

/**
 * An input broke one of the {@link Rules}; carries the {@link Violation} so every edge reports the
 * same field and message.
 */
public final class InvalidInputException extends IllegalArgumentException {

    private final transient Violation violation;

    public InvalidInputException(Violation violation) {
        super(violation.field() + ": " + violation.message());
        this.violation = violation;
    }

    public InvalidInputException(String field, String message) {
        this(new Violation(field, message));
    }

    public Violation violation() {
        return violation;
    }

    public String field() {
        return violation.field();
    }
}
