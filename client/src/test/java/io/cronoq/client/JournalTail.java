package io.cronoq.client;

import io.cronoq.events.JournalEntry;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** Reads the whole journal (read_committed) as a test checks it: every entry so far, in order per pool. */
final class JournalTail implements AutoCloseable {

    private final KafkaConsumer<String, JournalEntry> consumer;
    private final List<JournalEntry> entries = new ArrayList<>();

    JournalTail(KafkaBroker broker, Topics topics) {
        consumer = new KafkaConsumer<>(broker.consumerProps(broker.uniqueName("journal")),
                topics.journal().keySerde().deserializer(), topics.journal().valueSerde().deserializer());
        consumer.subscribe(List.of(topics.journal().name()));
    }

    /** The events journaled so far about this task, in order. */
    List<SpecificRecord> eventsOf(String taskId) {
        consumer.poll(Duration.ofMillis(200)).forEach(r -> entries.add(r.value()));
        List<SpecificRecord> events = new ArrayList<>();
        for (JournalEntry e : entries) {
            SpecificRecord event = (SpecificRecord) e.getEvent();
            Schema.Field field = event.getSchema().getField("taskId");
            if (field != null && taskId.equals(event.get(field.pos()))) {
                events.add(event);
            }
        }
        return events;
    }

    /** The names of the events journaled so far about this task, e.g. {@code TaskSubmitted}. */
    List<String> typesOf(String taskId) {
        return eventsOf(taskId).stream().map(e -> e.getSchema().getName()).toList();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
