package io.cronoq.bench.chaos;

import io.cronoq.schemas.events.Journal;
import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/** Follows the committed journal from its start on a thread of its own; the test looks for entries in it. */
final class JournalTail implements AutoCloseable {
    private final KafkaConsumer<String, JournalEntry> consumer;
    private final List<JournalEntry> entries = new CopyOnWriteArrayList<>();
    private final Thread thread;

    private JournalTail(String bootstrap, Topics topics) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer = new KafkaConsumer<>(props, topics.journal().keySerde().deserializer(),
                topics.journal().valueSerde().deserializer());
        String topic = topics.journal().name();
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread = new Thread(this::follow, "journal-tail");
        thread.setDaemon(true);
    }

    static JournalTail start(String bootstrap, Topics topics) {
        JournalTail tail = new JournalTail(bootstrap, topics);
        tail.thread.start();
        return tail;
    }

    private void follow() {
        try {
            while (true) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> entries.addAll(Journal.entries(r.value())));
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    /** The first journaled event of this type that matches. */
    <T> Optional<T> find(Class<T> type, Predicate<T> which) {
        return entries.stream().map(JournalEntry::getEvent).filter(type::isInstance).map(type::cast)
                .filter(which).findFirst();
    }

    @Override
    public void close() throws InterruptedException {
        consumer.wakeup();
        thread.join(10_000);
    }

    /** Every journaled event of this type that matches, in the order read. */
    <T> List<T> all(Class<T> type, Predicate<T> which) {
        return entries.stream().map(JournalEntry::getEvent).filter(type::isInstance).map(type::cast)
                .filter(which).toList();
    }
}
