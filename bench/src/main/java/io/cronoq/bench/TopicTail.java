package io.cronoq.bench;

import io.cronoq.schemas.KafkaClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of one topic from its beginning, {@code read_committed} and without a group,
 * on its own thread, handing each record to a handler with the moment it arrived. What an assignment
 * or journal reader of the bench is built on. A handler's failure stops the tail and is rethrown by
 * {@link #close()}.
 */
public final class TopicTail implements AutoCloseable {

    /** What the tail does with each record and between polls. */
    public interface Handler {
        void onRecord(ConsumerRecord<byte[], byte[]> record, long receivedNanos);

        /** Called after every poll, records or not (e.g. to send what fell due). */
        default void afterPoll(long nowNanos) {
        }

        /** How long the next poll may block, in ms. */
        default long pollMillis() {
            return 100;
        }
    }

    private static final Logger log = LoggerFactory.getLogger(TopicTail.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;

    private TopicTail(String bootstrap, String topic, Handler handler) {
        Map<String, Object> props = KafkaClients.logReader(KafkaClients.bootstrap(bootstrap),
                KafkaClients.uniqueId("cronoq-bench-tail"));
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        // Large enough for every record the fuzz test can make the broker accept.
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024);
        consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        if (partitions.isEmpty()) {
            consumer.close();
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(() -> loop(handler), "tail-" + topic);
        thread.setDaemon(true);
    }

    /** Starts reading {@code topic} on {@code bootstrap}. */
    public static TopicTail start(String bootstrap, String topic, Handler handler) {
        TopicTail tail = new TopicTail(bootstrap, topic, handler);
        tail.thread.start();
        return tail;
    }

    private void loop(Handler handler) {
        try {
            while (running) {
                var records = consumer.poll(Duration.ofMillis(handler.pollMillis()));
                long now = System.nanoTime();
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    handler.onRecord(r, now);
                }
                handler.afterPoll(System.nanoTime());
            }
        } catch (WakeupException e) {
            // close() woke us up
        } catch (RuntimeException | Error e) {
            log.error("Reading {} failed", thread.getName(), e);
            failure.set(e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    /** The failure that stopped the tail, if any. */
    public Throwable failure() {
        return failure.get();
    }

    /** Stops reading; rethrows what stopped the tail early, if anything did. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Throwable error = failure.get();
        if (error != null) {
            throw new IllegalStateException(thread.getName() + " failed: " + error, error);
        }
    }
}
