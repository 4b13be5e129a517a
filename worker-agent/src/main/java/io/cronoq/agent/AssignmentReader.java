package io.cronoq.agent;

import io.cronoq.schemas.KeyPartitions;
import io.cronoq.events.AssignmentEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's reading loop: finds the assignments partition its id hashes to, assigns it manually (no group
 * rebalancing), resumes from the offset it committed last (or the end, for a worker never seen), then hands every
 * record keyed by its id to the worker, in order, and commits what it handled. The loop survives broker outages and
 * bad records: Kafka's client reconnects, a record that does not decode is logged with its coordinates and skipped.
 */
final class AssignmentReader implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(AssignmentReader.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration RETRY = Duration.ofMillis(500);

    private final org.apache.kafka.clients.consumer.Consumer<String, AssignmentEvent> consumer;
    private final String topic;
    private final String workerId;
    private final Consumer<AssignmentEvent> handler;
    private final Runnable onReady;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private TopicPartition partition;
    private long handledUpTo = -1;

    /**
     * @param onReady called once the reading position is fixed, before the first poll: registering only then
     *                guarantees that the answer to the registration is read
     */
    AssignmentReader(org.apache.kafka.clients.consumer.Consumer<String, AssignmentEvent> consumer, String topic,
                     String workerId, Consumer<AssignmentEvent> handler, Runnable onReady) {
        this.consumer = consumer;
        this.topic = topic;
        this.workerId = workerId;
        this.handler = handler;
        this.onReady = onReady;
    }

    @Override
    public void run() {
        try {
            partition = awaitPartition();
            if (partition == null) {
                return;
            }
            consumer.assign(List.of(partition));
            long position = consumer.position(partition);
            log.info("Worker {} reads {} from offset {}", workerId, partition, position);
            onReady.run();
            while (running) {
                pollOnce(partition);
            }
        } catch (WakeupException e) {
            if (running) {
                log.error("The assignments reader of worker {} was woken up unexpectedly", workerId, e);
            }
        } catch (RuntimeException e) {
            log.error("The assignments reader of worker {} stopped", workerId, e);
        } finally {
            commitHandled();
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                log.warn("Closing the assignments consumer of worker {} failed", workerId, e);
            }
            stopped.countDown();
        }
    }

    private TopicPartition awaitPartition() {
        boolean warned = false;
        while (running) {
            try {
                List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(5));
                if (partitions != null && !partitions.isEmpty()) {
                    return new TopicPartition(topic, KeyPartitions.of(workerId, partitions.size()));
                }
                if (!warned) {
                    log.warn("Worker {} waits for the topic {} (is the scheduler set up?)", workerId, topic);
                    warned = true;
                }
            } catch (WakeupException e) {
                throw e;
            } catch (RuntimeException e) {
                if (!warned) {
                    log.warn("Worker {} cannot read the partitions of {} yet: {}", workerId, topic, e.toString());
                    warned = true;
                }
            }
            pause(RETRY);
        }
        return null;
    }

    private void pollOnce(TopicPartition partition) {
        ConsumerRecords<String, AssignmentEvent> records;
        try {
            records = consumer.poll(POLL);
        } catch (RecordDeserializationException e) {
            log.error("Skipping a record of {} at offset {} that does not decode", e.topicPartition(), e.offset(), e);
            consumer.seek(e.topicPartition(), e.offset() + 1);
            return;
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            log.warn("Polling {} for worker {} failed: {}; retrying", partition, workerId, e.toString());
            pause(RETRY);
            return;
        }
        if (records.isEmpty()) {
            return;
        }
        long next = -1;
        for (ConsumerRecord<String, AssignmentEvent> record : records) {
            next = record.offset() + 1;
            if (!workerId.equals(record.key()) || record.value() == null) {
                continue;
            }
            try {
                handler.accept(record.value());
            } catch (RuntimeException e) {
                log.error("Handling {} at {}-{} offset {} failed; it is skipped", record.value().getEvent()
                        .getClass().getSimpleName(), record.topic(), record.partition(), record.offset(), e);
            }
        }
        handledUpTo = next;
        long offset = next;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        offsets.put(partition, new OffsetAndMetadata(offset));
        consumer.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                log.debug("Committing offset {} of {} failed ({}); a later commit covers it", offset, partition,
                        error.toString());
            }
        });
    }

    /** Commits, synchronously, the offset after the last record handled, so a restart resumes after it. */
    private void commitHandled() {
        if (partition == null || handledUpTo < 0) {
            return;
        }
        for (int attempt = 1; attempt <= 2; attempt++) {
            try {
                consumer.commitSync(Map.of(partition, new OffsetAndMetadata(handledUpTo)), Duration.ofSeconds(5));
                return;
            } catch (WakeupException e) {
                // The wakeup that stopped the loop may still be pending; it is consumed now, so try once more.
            } catch (RuntimeException e) {
                log.warn("Committing offset {} of {} for worker {} failed: {}; a restart re-reads from the last "
                        + "committed offset and skips what belongs to earlier generations", handledUpTo, partition,
                        workerId, e.toString());
                return;
            }
        }
    }

    /** Stops the loop and waits (at most {@code timeout}) until the consumer has committed and closed. */
    void stop(Duration timeout) {
        running = false;
        consumer.wakeup();
        try {
            if (!stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("The assignments reader of worker {} did not stop within {}", workerId, timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void pause(Duration duration) {
        try {
            TimeUnit.MILLISECONDS.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }
}
