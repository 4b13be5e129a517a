package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.JournalEntry;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/** Reading journal entries in the topology tests: their event types in order, the events of one type, the one event of a type. */
final class JournalEntries {

    private JournalEntries() {}

    static List<String> types(List<JournalEntry> entries) {
        return entries.stream().map(e -> ((SpecificRecord) e.getEvent()).getSchema().getName()).toList();
    }

    static <T> List<T> all(List<JournalEntry> entries, Class<T> type) {
        return entries.stream().map(JournalEntry::getEvent).filter(type::isInstance).map(type::cast).toList();
    }

    static <T> T only(List<JournalEntry> entries, Class<T> type) {
        List<T> found = all(entries, type);
        assertThat(found).as("one %s in %s", type.getSimpleName(), types(entries)).hasSize(1);
        return found.get(0);
    }
}
