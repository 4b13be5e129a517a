package io.cronoq.testkit;

import io.cronoq.kafka.LocalKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LocalKafka} for tests: free ports of 127.0.0.1 and a temp directory that {@link #close()}
 * deletes.
 */
final class EmbeddedKraftBroker implements BrokerBackend {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKraftBroker.class);
    private static final int START_ATTEMPTS = 3;

    private final Path baseDir;
    private final LocalKafka kafka;

    private EmbeddedKraftBroker(Path baseDir, LocalKafka kafka) {
        this.baseDir = baseDir;
        this.kafka = kafka;
    }

    /** Starts a fresh node; retries with new ports if a probed port was taken meanwhile. */
    static EmbeddedKraftBroker start() {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            Path baseDir = createTempDir();
            try {
                return new EmbeddedKraftBroker(baseDir, LocalKafka.start(baseDir, LocalKafka.freePort(), LocalKafka.freePort()));
            } catch (RuntimeException e) {
                deleteRecursively(baseDir);
                last = e;
                log.warn("In-JVM Kafka failed to start (attempt {}/{}): {}", attempt, START_ATTEMPTS, e.toString());
            }
        }
        throw last;
    }

    private static Path createTempDir() {
        try {
            return Files.createTempDirectory("cronoq-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create a temp directory for the in-JVM Kafka", e);
        }
    }

    @Override
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    @Override
    public String description() {
        return "in-JVM KRaft broker at " + kafka.bootstrapServers();
    }

    @Override
    public void close() {
        kafka.close();
        deleteRecursively(baseDir);
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    log.warn("Could not delete {}: {}", path, e.toString());
                }
            });
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete the Kafka temp directory {}", dir, e);
        }
    }
}
