package io.cronoq.schemas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.CompletionEvent;
import io.cronoq.events.DependencyEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SubmissionEvent;
import io.cronoq.events.WorkerEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The kinds name exactly the events the schemas' unions hold, in the unions' order. */
class EventKindsTest {

    @Test
    void journalKindsAreTheJournalUnion() {
        List<String> kinds = Arrays.stream(JournalKind.values()).map(k -> k.type().getName()).toList();
        assertThat(kinds).isEqualTo(branches(JournalEntry.getClassSchema()));
    }

    @Test
    void inputKindsAreTheInputTopicsUnions() {
        List<String> unions = new ArrayList<>(branches(SubmissionEvent.getClassSchema()));
        unions.addAll(branches(WorkerEvent.getClassSchema()));
        unions.addAll(branches(CompletionEvent.getClassSchema()));
        unions.addAll(branches(DependencyEvent.getClassSchema()));
        assertThat(Arrays.stream(InputKind.values()).map(k -> k.type().getName()).toList()).isEqualTo(unions);
    }

    @Test
    void anObjectOutsideTheUnionsHasNoKind() {
        assertThat(InputKind.find("text")).isNull();
        assertThat(InputKind.find(null)).isNull();
        assertThatThrownBy(() -> JournalKind.of((Object) "text")).hasMessageContaining("not a journal event: java.lang.String");
    }

    private static List<String> branches(Schema record) {
        return record.getField("event").schema().getTypes().stream().map(Schema::getFullName).toList();
    }
}
