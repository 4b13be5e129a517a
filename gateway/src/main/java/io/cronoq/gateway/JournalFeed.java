package io.cronoq.gateway;

import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.Topics;
import io.cronoq.schemas.events.Journal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's one reader of the journal (and of the dead letters), feeding what it derives from
 * it: the {@link JournalMeter}'s counters and the {@link JournalHistory}. One consumer on one
 * thread, every partition assigned, {@code read_committed}; each record is decoded once, for
 * whichever of the two takes it, and its entries are handed over one by one.
 *
 * <p>Where each reads from: the meter counts what the journal gets from the gateway's start on (the
 * journal is read from its end then), and every dead letter from the topic's beginning. The history,
 * once the stores answer (tried every second), takes from them the state at (now − the history's
 * length) ({@link HistoryBaseline}), then every entry from that time on: each journal partition from
 * the first record at or after it ({@code offsetsForTimes}; from the partition's end when there is
 * none), moved back to there when that is before where the feed is, and in each pool from its first
 * entry at or after it. The meter counts each offset
 * once, so what is read again is the history's alone. So a gateway that restarts rebuilds the same
 * minutes, and every instance answers for every pool without forwarding.
 *
 * <p>The two fail apart: when counting or the history throws, that one stops (logged) and the other
 * goes on; when reading itself fails, both stop.
 */
final class JournalFeed implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JournalFeed.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration RETRY = Duration.ofSeconds(1);

    private final Consumer<String, byte[]> consumer;
    private final Topics topics;
    private final JournalMeter meter;
    private final JournalHistory history;
    /** Applies the history's baseline and returns its start ({@link HistoryBaseline#apply}). */
    private final Supplier<Instant> baseline;
    private final Thread thread = new Thread(this::run, "cronoq-gateway-journal");
    private volatile boolean closed;

    // Owned by the feed's thread.
    /** Per journal partition, the next offset the meter has not read yet. */
    private final Map<TopicPartition, Long> unmetered = new HashMap<>();
    /** Per journal partition, the first offset the history takes; empty until it has its baseline. */
    private final Map<TopicPartition, Long> historyFrom = new HashMap<>();
    /** The history's start in epoch milliseconds, once it has its baseline. */
    private long historyStart;
    /**
     * Per pool, the latest entry time the history has seen. A record holds what its pool's inputs
     * caused between two of the scheduler's commits, so the first record at or after the start may
     * begin with entries from before it, which the baseline already holds: the history takes a
     * pool's entries from its first at or after the start on (a running maximum, so an input stamped
     * by a slower clock after it is taken too).
     */
    private final Map<String, Long> historyTime = new HashMap<>();
    private boolean metering = true;
    private boolean historyFailed;
    private long nextBaselineNanos;

    /** A feed reading with the gateway's Kafka settings. */
    JournalFeed(Map<String, Object> kafkaConfig, Topics topics, JournalMeter meter, JournalHistory history,
                StateReader stores, Clock clock) {
        this(LogReaders.create(kafkaConfig, "cronoq-gateway-journal"), topics, meter, history, stores, clock);
    }

    /** A feed reading with {@code consumer}, which it closes; the history's baseline comes from {@code stores}. */
    JournalFeed(Consumer<String, byte[]> consumer, Topics topics, JournalMeter meter, JournalHistory history,
                StateReader stores, Clock clock) {
        this.consumer = consumer;
        this.topics = topics;
        this.meter = meter;
        this.history = history;
        this.baseline = () -> HistoryBaseline.apply(history, stores, clock);
        thread.setDaemon(true);
    }

    JournalFeed start() {
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
            unmetered.putAll(consumer.endOffsets(journal));
            unmetered.forEach(consumer::seek);
            if (!letters.isEmpty()) {
                consumer.seekToBeginning(letters); // (an empty list would move every partition to its beginning)
            }
            nextBaselineNanos = System.nanoTime();
            while (!closed && (metering || !historyFailed)) {
                if (historyFrom.isEmpty() && !historyFailed && System.nanoTime() - nextBaselineNanos >= 0) {
                    startHistory(journal);
                }
                read(consumer.poll(POLL));
            }
        } catch (WakeupException e) {
            if (!closed) {
                log.error("The journal feed was woken up unexpectedly; the journal counters and history stop", e);
            }
        } catch (RuntimeException e) {
            log.error("Reading the journal failed; the journal counters and history stop", e);
        } finally {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        }
    }

    private List<TopicPartition> partitions(String topic) {
        List<TopicPartition> result = new ArrayList<>();
        consumer.partitionsFor(topic).forEach(p -> result.add(new TopicPartition(topic, p.partition())));
        return result;
    }

    /**
     * Applies the state at the history's start, from the stores, and says where its entries begin;
     * tried again a second later while the stores do not answer.
     */
    private void startHistory(List<TopicPartition> journal) {
        try {
            Instant start;
            try {
                start = baseline.get();
            } catch (ApiException e) {
                log.debug("Journal history: the stores do not answer yet ({}); retrying", e.getMessage());
                nextBaselineNanos = System.nanoTime() + RETRY.toNanos();
                return;
            }
            Map<TopicPartition, Long> times = new HashMap<>();
            journal.forEach(p -> times.put(p, start.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times);
            List<TopicPartition> atEnd = journal.stream().filter(p -> found.get(p) == null).toList();
            // Nothing written since the start: the history reads what comes.
            Map<TopicPartition, Long> ends = atEnd.isEmpty() ? Map.of() : consumer.endOffsets(atEnd);
            for (TopicPartition p : journal) {
                long from = found.get(p) == null ? ends.get(p) : found.get(p).offset();
                if (from < consumer.position(p)) {
                    consumer.seek(p, from);
                }
                historyFrom.put(p, from);
            }
            historyStart = start.toEpochMilli();
            log.info("Journal history: reading {} journal partitions from {}", journal.size(), start);
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            historyFailed(e);
        }
    }

    private void read(ConsumerRecords<String, byte[]> records) {
        if (records.isEmpty()) {
            return;
        }
        Predicate<String> owned = metering ? meter.ownedPools() : pool -> false;
        for (ConsumerRecord<String, byte[]> r : records) {
            if (r.topic().equals(topics.deadLetters().name())) {
                if (metering) {
                    meter.deadLetter();
                }
                continue;
            }
            TopicPartition p = new TopicPartition(r.topic(), r.partition());
            boolean unread = r.offset() >= unmetered.get(p);
            if (unread) {
                unmetered.put(p, r.offset() + 1);
            }
            boolean counted = metering && unread && owned.test(r.key());
            boolean historic = !historyFailed && !historyFrom.isEmpty() && r.offset() >= historyFrom.get(p);
            JournalEntry record = counted || historic ? decode(r) : null;
            if (record == null) {
                continue;
            }
            for (JournalEntry entry : Journal.entries(record)) {
                if (counted && metering) {
                    count(entry);
                }
                if (historic && !historyFailed
                        && historyTime.merge(entry.getPool(), entry.getAt().toEpochMilli(), Math::max) >= historyStart) {
                    try {
                        history.apply(entry);
                    } catch (RuntimeException e) {
                        historyFailed(e);
                    }
                }
            }
        }
    }

    private void count(JournalEntry entry) {
        try {
            meter.count(entry);
        } catch (RuntimeException e) {
            log.error("The journal meter failed; its counters stop", e);
            metering = false;
        }
    }

    private void historyFailed(RuntimeException e) {
        log.error("The journal history failed; it stops", e);
        historyFailed = true;
    }

    private JournalEntry decode(ConsumerRecord<String, byte[]> record) {
        try {
            return Journal.decode(topics.journal(), record);
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
