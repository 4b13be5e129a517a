package io.cronoq.schemas;

/**
 * A schema registry could not answer: unreachable, refused the request, or found an id collision. Unlike
 * {@link WireFormatException} it says nothing about the record being decoded, so it is not a reason to
 * dead-letter the record; retry or stop.
 */
public class SchemaRegistryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with what went wrong and what to do. */
    public SchemaRegistryException(String message) {
        super(message);
    }

    /** A failure with what went wrong and what to do, and its cause. */
    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
