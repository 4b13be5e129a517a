package io.cronoq.agent;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.WorkerEvent;
import io.cronoq.events.WorkerLeft;
import io.cronoq.schemas.SchemaRegistryException;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka {@link EventSink} of a process's workers: one producer, one sending thread (so events leave in the order they were
 * published and a broker outage never blocks a caller), and a retry with backoff for every send that fails for a
 * reason that can pass (broker away, metadata timeout, registry unreachable). Only an event that can never be
 * written (it does not serialize, it is too large) fails its future, and that is logged as an error. Every event is
 * keyed by the pool it names, so the workers of several pools can share it.
 */
final class KafkaEventPublisher implements EventSink {

    private static final Logger log = LoggerFactory.getLogger(KafkaEventPublisher.class);
    static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final Producer<String, byte[]> producer;
    private final Topics topics;
    private final ScheduledExecutorService sender;
    private final AtomicInteger pending = new AtomicInteger();
    private volatile boolean closed;

    /** @param name whose events these are (a worker id, an application's name), for the sending thread's name */
    KafkaEventPublisher(Producer<String, byte[]> producer, Topics topics, String name) {
        this.producer = producer;
        this.topics = topics;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                Threads.named("cronoq-publish-" + name));
        executor.setRemoveOnCancelPolicy(true);
        this.sender = executor;
    }

    @Override
    public CompletableFuture<Void> publish(SpecificRecord event) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (closed) {
            done.completeExceptionally(new IllegalStateException("the publisher is closed; " + describe(event)
                    + " was not sent"));
            return done;
        }
        pending.incrementAndGet();
        done.whenComplete((ok, error) -> pending.decrementAndGet());
        submit(() -> send(event, done, 1), Duration.ZERO, event, done);
        return done;
    }

    private void send(SpecificRecord event, CompletableFuture<Void> done, int attempt) {
        ProducerRecord<String, byte[]> record;
        try {
            record = record(event);
        } catch (SchemaRegistryException e) {
            retry(event, done, attempt, e);
            return;
        } catch (RuntimeException e) {
            log.error("Dropping {}: it cannot be serialized", describe(event), e);
            done.completeExceptionally(e);
            return;
        }
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    if (attempt > 1) {
                        log.info("Sent {} after {} attempts", describe(event), attempt);
                    }
                    done.complete(null);
                } else if (retriable(error)) {
                    retry(event, done, attempt, error);
                } else {
                    log.error("Dropping {}: the broker refused it for good", describe(event), error);
                    done.completeExceptionally(error);
                }
            });
        } catch (RuntimeException e) {
            // send() throws synchronously when metadata cannot be fetched in max.block.ms, or when closed.
            if (retriable(e)) {
                retry(event, done, attempt, e);
            } else {
                log.error("Dropping {}: it could not be handed to the producer", describe(event), e);
                done.completeExceptionally(e);
            }
        }
    }

    private void retry(SpecificRecord event, CompletableFuture<Void> done, int attempt, Throwable error) {
        if (closed) {
            done.completeExceptionally(error);
            return;
        }
        Duration backoff = backoff(attempt);
        if (attempt == 1 || attempt % 10 == 0) {
            log.warn("Sending {} failed (attempt {}): {}; retrying in {} ms", describe(event), attempt,
                    error.toString(), backoff.toMillis());
        }
        submit(() -> send(event, done, attempt + 1), backoff, event, done);
    }

    private void submit(Runnable task, Duration delay, SpecificRecord event, CompletableFuture<Void> done) {
        try {
            sender.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(new IllegalStateException("the publisher is closed; " + describe(event)
                    + " was not sent", e));
        }
    }

    static Duration backoff(int attempt) {
        long millis = FIRST_BACKOFF.toMillis() << Math.min(attempt - 1, 10);
        return Duration.ofMillis(Math.min(millis, MAX_BACKOFF.toMillis()));
    }

    private static boolean retriable(Throwable error) {
        return error instanceof RetriableException || error instanceof TimeoutException
                || error instanceof SchemaRegistryException
                || error.getCause() instanceof RetriableException;
    }

    private ProducerRecord<String, byte[]> record(SpecificRecord event) {
        String name = event.getSchema().getName();
        if (name.startsWith("Worker")) {
            String topic = topics.workers().name();
            byte[] value = topics.workers().valueSerde().serializer().serialize(topic, new WorkerEvent(event));
            // A leave carries its own time as the record's, so the scheduler orders it after the reports that
            // preceded it (WorkerCore stamps it after them); other events take the producer's time.
            Long timestamp = event instanceof WorkerLeft left ? left.getAt().toEpochMilli() : null;
            return new ProducerRecord<>(topic, null, timestamp, pool(event), value);
        }
        if (name.startsWith("Attempt")) {
            String topic = topics.completions().name();
            return new ProducerRecord<>(topic, pool(event),
                    topics.completions().valueSerde().serializer().serialize(topic, new CompletionEvent(event)));
        }
        throw new IllegalArgumentException("a worker does not publish " + name);
    }

    /** The pool an event names: its key, so a pool's events stay in order on one partition. */
    private static String pool(SpecificRecord event) {
        return event.get(event.getSchema().getField("pool").pos()).toString();
    }

    static String describe(SpecificRecord event) {
        StringBuilder sb = new StringBuilder(event.getSchema().getName());
        for (String name : new String[] {"taskId", "attempt", "workerId", "generation"}) {
            var field = event.getSchema().getField(name);
            Object value = field == null ? null : event.get(field.pos());
            if (value != null) {
                sb.append(' ').append(name).append('=').append(value);
            }
        }
        return sb.toString();
    }

    @Override
    public void close(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        // Let queued events (including retries) go out while there is time.
        while (pending.get() > 0 && System.nanoTime() < deadline) {
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closed = true;
        int left = pending.get();
        if (left > 0) {
            log.warn("Closing with {} event(s) not yet written to the broker; the scheduler will not see them", left);
        }
        sender.shutdownNow();
        long remaining = Math.max(0, deadline - System.nanoTime());
        producer.close(Duration.ofNanos(remaining));
    }
}
