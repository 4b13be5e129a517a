package io.cronoq.testkit;

/** A running Kafka broker the test kit can hand out; closing it stops the broker and frees its resources. */
interface BrokerBackend extends AutoCloseable {

    /** The {@code bootstrap.servers} value clients use to reach this broker. */
    String bootstrapServers();

    /** A short name for logs ("in-JVM KRaft", "container"). */
    String description();

    @Override
    void close();
}
