package io.cronoq.bench;

import io.cronoq.kafka.LocalKafka;
import java.nio.file.Path;

/** The Kafka a bench runs against: an embedded single-node broker in the run's directory, or an external one. */
public final class BenchBroker implements AutoCloseable {

    private final LocalKafka embedded;
    private final String bootstrap;

    private BenchBroker(LocalKafka embedded, String bootstrap) {
        this.embedded = embedded;
        this.bootstrap = bootstrap;
    }

    /** The external broker at {@code bootstrap}, or, when it is null, a new embedded one with its data under {@code dir}. */
    public static BenchBroker start(String bootstrap, Path dir) {
        if (bootstrap != null) {
            return new BenchBroker(null, bootstrap);
        }
        LocalKafka kafka = LocalKafka.start(dir.resolve("kafka"), LocalKafka.freePort(), LocalKafka.freePort());
        return new BenchBroker(kafka, kafka.bootstrapServers());
    }

    public String bootstrap() {
        return bootstrap;
    }

    public boolean embedded() {
        return embedded != null;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
