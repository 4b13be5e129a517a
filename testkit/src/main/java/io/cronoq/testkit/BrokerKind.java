package io.cronoq.testkit;

import java.util.function.BooleanSupplier;

/** Which broker a test run gets: the in-JVM KRaft node, or a Testcontainers container when asked for and possible. */
enum BrokerKind {
    IN_JVM,
    CONTAINER;

    /** System property that asks for a container broker: {@code -Dcronoq.test.broker=container}. */
    static final String PROPERTY = "cronoq.test.broker";

    /**
     * Chooses the broker kind. The Docker probe is only consulted when a container was asked for, so the
     * default path never pays for it.
     */
    static BrokerKind choose(String requested, BooleanSupplier dockerAvailable) {
        if (requested != null && requested.trim().equalsIgnoreCase("container") && dockerAvailable.getAsBoolean()) {
            return CONTAINER;
        }
        return IN_JVM;
    }
}
