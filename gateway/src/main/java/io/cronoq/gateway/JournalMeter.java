package io.cronoq.gateway;

import io.cronoq.schemas.KeyPartitions;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskCancelled;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.scheduler.query.ClassKeys;
import io.cronoq.schemas.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counters derived from the journal, the scheduler's own record of every decision: placements,
 * finished attempts, completed tasks, accepted submissions and rejected inputs, each per pool —
 * counted only for the pools this instance owns when the entry is read, so that summing every
 * instance counts each decision once. They start at zero when the gateway starts (the journal is
 * read from its end), as Prometheus counters do. Also counts the dead letters on their topic, read
 * from its beginning (within retention): the same total on every instance, so take the max.
 */
final class JournalMeter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JournalMeter.class);
    private static final Duration POLL = Duration.ofMillis(200);

    private final MeterRegistry registry;
    private final Topics topics;
    private final Supplier<Set<Integer>> ownedPartitions;
    private final IntSupplier inputPartitions;
    private final KafkaConsumer<String, byte[]> consumer;
    private final AtomicLong deadLetters = new AtomicLong();
    private final Map<List<String>, Counter> counters = new HashMap<>();
    private final Thread thread;
    private volatile boolean closed;

    JournalMeter(Map<String, Object> kafkaConfig, Topics topics, MeterRegistry registry,
                 Supplier<Set<Integer>> ownedPartitions, IntSupplier inputPartitions) {
        this.registry = registry;
        this.topics = topics;
        this.ownedPartitions = ownedPartitions;
        this.inputPartitions = inputPartitions;
        this.consumer = LogReaders.create(kafkaConfig, "cronoq-gateway-journal");
        Gauge.builder("cronoq.dead.letters", deadLetters, AtomicLong::get)
                .description("Records on the dead-letter topic (within its retention), read from its beginning")
                .register(registry);
        this.thread = new Thread(this::run, "cronoq-gateway-journal");
        this.thread.setDaemon(true);
    }

    JournalMeter start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            List<TopicPartition> journal = partitions(topics.journal().name());
            List<TopicPartition> letters = partitions(topics.deadLetters().name());
            List<TopicPartition> all = new ArrayList<>(journal);
            all.addAll(letters);
            consumer.assign(all);
            consumer.seekToEnd(journal);
            consumer.seekToBeginning(letters);
            while (!closed) {
                var records = consumer.poll(POLL);
                if (records.isEmpty()) {
                    continue;
                }
                Set<Integer> owned = owned();
                for (ConsumerRecord<String, byte[]> r : records) {
                    if (r.topic().equals(topics.deadLetters().name())) {
                        deadLetters.incrementAndGet();
                    } else if (r.key() != null && owned.contains(partitionOf(r.key()))) {
                        count(r);
                    }
                }
            }
        } catch (WakeupException e) {
            if (!closed) {
                log.error("The journal meter was woken up unexpectedly; its counters stop", e);
            }
        } catch (RuntimeException e) {
            log.error("The journal meter failed; its counters stop", e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private List<TopicPartition> partitions(String topic) {
        List<TopicPartition> result = new ArrayList<>();
        consumer.partitionsFor(topic).forEach(p -> result.add(new TopicPartition(topic, p.partition())));
        return result;
    }

    private Set<Integer> owned() {
        try {
            return ownedPartitions.get();
        } catch (RuntimeException e) {
            return Set.of(); // not running (rebalancing): nobody's decisions are being made here right now
        }
    }

    /** The input partition of a pool: what Kafka's default partitioner gives its key. */
    private int partitionOf(String pool) {
        return KeyPartitions.of(pool, inputPartitions.getAsInt());
    }

    private void count(ConsumerRecord<String, byte[]> record) {
        JournalEntry entry;
        try {
            entry = topics.journal().valueSerde().deserializer().deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            log.warn("Skipping undecodable journal record {}-{}@{}: {}", record.topic(), record.partition(),
                    record.offset(), e.toString());
            return;
        }
        String pool = entry.getPool();
        Object event = entry.getEvent();
        if (event instanceof AttemptAssigned a) {
            counter("cronoq.placements", "Attempts assigned to a worker", "pool", pool, "group",
                    ClassKeys.of(a.getGroup())).increment();
        } else if (event instanceof TaskFinished f) {
            counter("cronoq.attempts.finished", "Attempts that ended, by outcome", "pool", pool, "outcome",
                    f.getOutcome().name()).increment();
            if (f.getState() == TaskState.SUCCEEDED || f.getState() == TaskState.FAILED) {
                completed(pool, f.getState());
            }
        } else if (event instanceof TaskCancelled) {
            completed(pool, TaskState.CANCELLED);
        } else if (event instanceof TaskForgotten) {
            counter("cronoq.tasks.forgotten", "Finished tasks dropped from the stores at the end of their retention",
                    "pool", pool).increment();
        } else if (event instanceof TaskSubmitted) {
            counter("cronoq.submissions", "Submissions the scheduler accepted", "pool", pool).increment();
        } else if (event instanceof InputRejected r) {
            counter("cronoq.inputs.rejected", "Inputs the scheduler rejected", "pool", pool, "input",
                    r.getInputType(), "code", r.getCode().name()).increment();
        }
    }

    private void completed(String pool, TaskState state) {
        counter("cronoq.tasks.completed", "Tasks that reached a final state", "pool", pool, "state", state.name())
                .increment();
    }

    private Counter counter(String name, String doc, String... tags) {
        List<String> key = new ArrayList<>(tags.length + 1);
        key.add(name);
        key.addAll(List.of(tags));
        return counters.computeIfAbsent(key, k -> Counter.builder(name).description(doc).tags(tags).register(registry));
    }

    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            thread.join(Duration.ofSeconds(10).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
