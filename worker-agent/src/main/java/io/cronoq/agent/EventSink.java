package io.cronoq.agent;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.avro.specific.SpecificRecord;

/**
 * Where a worker's events go: {@code Worker*} events to the workers topic, {@code Attempt*} events to the
 * completions topic, both keyed by pool. An implementation does not lose an event it accepted because the broker
 * was away: it retries until the event is written or the sink is closed.
 */
interface EventSink extends AutoCloseable {

    /** Queues the event; the future completes once the broker has it (or fails if it can never be written). */
    CompletableFuture<Void> publish(SpecificRecord event);

    /** Writes what is queued, waiting at most {@code timeout}, then releases the clients. */
    void close(Duration timeout);

    @Override
    default void close() {
        close(Duration.ofSeconds(10));
    }
}
