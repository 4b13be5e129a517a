package io.cronoq.schemas;

import org.apache.avro.util.ClassSecurityValidator;
import org.apache.avro.util.ClassSecurityValidator.ClassSecurityPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes Avro 1.12.2+ trust cronoq's generated classes ({@code io.cronoq.events}), so building and decoding them
 * needs no {@code -Dorg.apache.avro.SERIALIZABLE_PACKAGES} flag. Every generated record class calls it from its
 * static initializer (the schemas build adds that line), so it has run before any cronoq class is used.
 * Idempotent, and keeps whatever else was trusted before.
 */
public final class AvroTrust {

    /** The package of the classes generated from cronoq's schemas. */
    public static final String EVENTS_PACKAGE = "io.cronoq.events";

    private static final Logger log = LoggerFactory.getLogger(AvroTrust.class);
    private static final ClassSecurityPredicate CRONOQ_EVENTS = type -> EVENTS_PACKAGE.equals(type.getPackageName());

    private AvroTrust() {
    }

    /** Adds cronoq's generated classes to Avro's global trust list unless they are trusted already. */
    public static synchronized void ensureTrusted() {
        ClassSecurityPredicate current = ClassSecurityValidator.getGlobal();
        if (current.isTrusted(io.cronoq.events.SubmissionEvent.class)) {
            return;
        }
        ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(current, CRONOQ_EVENTS));
        log.debug("Avro now trusts the generated classes of {}", EVENTS_PACKAGE);
    }
}
