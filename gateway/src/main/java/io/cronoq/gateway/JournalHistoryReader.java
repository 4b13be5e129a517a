package io.cronoq.gateway;

import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link JournalHistory} of every pool up to date: when it starts it waits until the
 * stores answer, takes from them the state at (now − the history's length) ({@link HistoryBaseline}),
 * then reads every partition of the journal from that time ({@code offsetsForTimes}), {@code
 * read_committed}, and follows it. So a gateway that restarts rebuilds the same minutes, and every
 * instance answers for every pool without forwarding.
 */
final class JournalHistoryReader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JournalHistoryReader.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final JournalHistory history;
    private final Topics topics;
    private final StateReader stores;
    private final Clock clock;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private volatile boolean closed;

    JournalHistoryReader(Map<String, Object> kafkaConfig, Topics topics, StateReader stores, Clock clock,
                         JournalHistory history) {
        this.history = history;
        this.topics = topics;
        this.stores = stores;
        this.clock = clock;
        this.consumer = LogReaders.create(kafkaConfig, "cronoq-gateway-history");
        this.thread = new Thread(this::run, "cronoq-gateway-history");
        this.thread.setDaemon(true);
    }

    JournalHistoryReader start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            Instant start = baseline();
            if (start == null) {
                return;
            }
            List<TopicPartition> journal = new ArrayList<>();
            consumer.partitionsFor(topics.journal().name())
                    .forEach(p -> journal.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(journal);
            Map<TopicPartition, Long> times = new HashMap<>();
            journal.forEach(p -> times.put(p, start.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> offsets = consumer.offsetsForTimes(times);
            List<TopicPartition> atEnd = new ArrayList<>();
            for (TopicPartition p : journal) {
                OffsetAndTimestamp found = offsets.get(p);
                if (found == null) {
                    atEnd.add(p); // nothing written since: read what comes
                } else {
                    consumer.seek(p, found.offset());
                }
            }
            if (!atEnd.isEmpty()) {
                consumer.seekToEnd(atEnd); // (an empty list would move every partition to its end)
            }
            log.info("Journal history: reading {} journal partitions from {}", journal.size(), start);
            while (!closed) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
                    JournalEntry entry = decode(r);
                    if (entry != null) {
                        history.apply(entry);
                    }
                }
            }
        } catch (WakeupException e) {
            if (!closed) {
                log.error("The journal history was woken up unexpectedly; it stops", e);
            }
        } catch (RuntimeException e) {
            log.error("The journal history failed; it stops", e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    /** Waits for the stores, then applies the state at the history's start; null when closed first. */
    private Instant baseline() {
        while (!closed) {
            Instant start = clock.instant().minus(Duration.ofMinutes(history.minutes()));
            try {
                List<JournalEntry> entries = HistoryBaseline.at(start, stores);
                entries.forEach(history::apply);
                history.since(start);
                log.info("Journal history: {} entries of the state at {} taken from the stores", entries.size(),
                        start);
                return start;
            } catch (ApiException e) {
                log.debug("Journal history: the stores do not answer yet ({}); retrying", e.getMessage());
            }
            try {
                Thread.sleep(RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
        return null;
    }

    private JournalEntry decode(ConsumerRecord<String, byte[]> record) {
        try {
            return topics.journal().valueSerde().deserializer().deserialize(record.topic(), record.value());
        } catch (RuntimeException e) {
            log.warn("Skipping undecodable journal record {}-{}@{}: {}", record.topic(), record.partition(),
                    record.offset(), e.toString());
            return null;
        }
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
