package io.cronoq.ops.replay;

import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.KafkaClients;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.events.Journal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the journal once, as it stands when the reader opens: every partition, from the beginning
 * or from the first entry at or after a time, up to the end offsets captured at open. A plain
 * {@code read_committed} consumer with assigned partitions and no group, so it commits nothing
 * and needs no scheduler running. Entries of one pool share a partition, so each pool's entries
 * arrive in journal order. A record that does not decode is logged with its coordinates and skipped.
 *
 * <p>From a time, it seeks with {@code offsetsForTimes} and then skips the entries before the time
 * on their pool's {@link JournalClock}: the journal is written in transactions, and a transaction
 * marker carries the time of its commit, not of the entries, so the offset Kafka finds can be
 * some entries early.
 */
final class JournalReader implements AutoCloseable {

    /** Receives how far the read is: offsets consumed of the total. */
    interface Progress {
        void update(long done, long total);

        void finish();

        Progress NONE = new Progress() {
            @Override
            public void update(long done, long total) {
            }

            @Override
            public void finish() {
            }
        };
    }

    /** What one read did: entries delivered and records skipped because they did not decode. */
    record Stats(long entries, long skipped) {}

    private static final Logger log = LoggerFactory.getLogger(JournalReader.class);
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(30);
    /** Polls in a row that return nothing although records remain before the end offsets: the read is stuck. */
    private static final int MAX_EMPTY_POLLS = 120;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Topic<String, JournalEntry> topic;
    private final Map<TopicPartition, Long> start = new HashMap<>();
    private final Map<TopicPartition, Long> end = new HashMap<>();

    private final Instant from;
    private final JournalClock clock = new JournalClock();

    private JournalReader(KafkaConsumer<byte[], byte[]> consumer, Topic<String, JournalEntry> topic, Instant from) {
        this.consumer = consumer;
        this.topic = topic;
        this.from = from;
    }

    /**
     * Opens the journal and fixes what will be read: from {@code from} (or the beginning when null)
     * to the end offsets of now.
     *
     * @param kafka connection settings (bootstrap servers, security); consumer settings are added here
     * @throws IllegalArgumentException when the journal topic does not exist
     */
    static JournalReader open(Map<String, Object> kafka, Topic<String, JournalEntry> topic, Instant from) {
        // Read by position (assigned and sought here), outside any group, committed records only.
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.logReader(kafka, "cronoq-replay"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        JournalReader reader = new JournalReader(consumer, topic, from);
        try {
            reader.position();
            return reader;
        } catch (RuntimeException e) {
            reader.close();
            throw e;
        }
    }

    private void position() {
        List<PartitionInfo> infos = consumer.partitionsFor(topic.name(), METADATA_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalArgumentException("there is no journal topic '" + topic.name()
                    + "' on this cluster; check --bootstrap and --topic-prefix");
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(info.topic(), info.partition()));
        }
        consumer.assign(partitions);
        // read_committed: the end offsets are the last stable offsets, so nothing undecided is read.
        end.putAll(consumer.endOffsets(partitions, METADATA_TIMEOUT));
        if (from == null) {
            start.putAll(consumer.beginningOffsets(partitions, METADATA_TIMEOUT));
        } else {
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(p -> query.put(p, from.toEpochMilli()));
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, METADATA_TIMEOUT);
            for (TopicPartition p : partitions) {
                OffsetAndTimestamp at = found.get(p);
                start.put(p, at == null ? end.get(p) : Math.min(at.offset(), end.get(p)));
            }
        }
        for (TopicPartition p : partitions) {
            consumer.seek(p, start.get(p));
        }
    }

    /** Offsets between the start and the end of every partition: an upper bound of the entries to read. */
    long total() {
        long total = 0;
        for (var e : end.entrySet()) {
            total += Math.max(0, e.getValue() - start.get(e.getKey()));
        }
        return total;
    }

    /** Reads every entry up to the end offsets into {@code sink}, reporting progress after each batch. */
    Stats read(Consumer<JournalEntry> sink, Progress progress) {
        long total = total();
        long entries = 0;
        long skipped = 0;
        int emptyPolls = 0;
        List<TopicPartition> open = new ArrayList<>();
        for (TopicPartition p : end.keySet()) {
            if (start.get(p) < end.get(p)) {
                open.add(p);
            }
        }
        consumer.pause(end.keySet().stream().filter(p -> !open.contains(p)).toList());
        progress.update(0, total);
        while (!open.isEmpty()) {
            ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
            emptyPolls = records.isEmpty() ? emptyPolls + 1 : 0;
            if (emptyPolls >= MAX_EMPTY_POLLS) {
                throw new IllegalStateException("reading " + topic.name() + " stalled with " + (total - done())
                        + " offsets left before the end; is the cluster reachable?");
            }
            for (ConsumerRecord<byte[], byte[]> record : records) {
                TopicPartition p = new TopicPartition(record.topic(), record.partition());
                if (record.offset() >= end.get(p)) {
                    continue;
                }
                JournalEntry decoded = decode(record);
                if (decoded == null) {
                    skipped++;
                    continue;
                }
                for (JournalEntry entry : Journal.entries(decoded)) {
                    if (from == null || clock.advance(entry) >= from.toEpochMilli()) {
                        entries++;
                        sink.accept(entry);
                    }
                }
            }
            List<TopicPartition> finished = new ArrayList<>();
            for (TopicPartition p : open) {
                if (consumer.position(p) >= end.get(p)) {
                    finished.add(p);
                }
            }
            open.removeAll(finished);
            consumer.pause(finished);
            progress.update(done(), total);
        }
        progress.finish();
        if (skipped > 0) {
            log.warn("Skipped {} journal record(s) of {} that could not be decoded (see the warnings above)", skipped,
                    topic.name());
        }
        return new Stats(entries, skipped);
    }

    private long done() {
        long done = 0;
        for (var e : end.entrySet()) {
            long position = Math.min(consumer.position(e.getKey()), e.getValue());
            done += Math.max(0, position - start.get(e.getKey()));
        }
        return done;
    }

    private JournalEntry decode(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            log.warn("Skipping an empty journal record at {}-{}@{}", record.topic(), record.partition(), record.offset());
            return null;
        }
        try {
            return Journal.decode(topic, record);
        } catch (RuntimeException e) {
            log.warn("Skipping a journal record that does not decode at {}-{}@{}: {}", record.topic(),
                    record.partition(), record.offset(), e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
