package io.cronoq.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.InMemorySchemaRegistry;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The journal peek names an entry's event from its bytes, and declines what it cannot be sure of. */
class JournalPeekTest {

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private final AvroSerde<JournalEntry> serde = AvroSerde.of(JournalEntry.class, registry);

    @Test
    void readsTheEventBranchOfAnEntryWrittenWithTheKnownSchema() {
        byte[] finished = serde.serialize("j", new JournalEntry("pool-a", Instant.EPOCH,
                new TaskFinished("t1", 1, "w1", AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null), null));
        byte[] waiting = serde.serialize("j", new JournalEntry("pool-a", Instant.EPOCH, new TaskWaiting("t2", "busy"), null));
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()));

        assertThat(peek.branch(finished)).isEqualTo(JournalPeek.branchOf(TaskFinished.getClassSchema().getFullName()));
        assertThat(peek.branch(waiting)).isEqualTo(JournalPeek.branchOf(TaskWaiting.getClassSchema().getFullName()));
    }

    @Test
    void anotherSchemaIdOrBadBytesAreUnknownSoTheCallerDecodesInFull() {
        byte[] entry = serde.serialize("j", new JournalEntry("p", Instant.EPOCH, new TaskWaiting("t", "r"), null));
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()) + 1);

        assertThat(peek.branch(entry)).isEqualTo(JournalPeek.UNKNOWN);
        assertThat(peek.branch(new byte[] {1, 2, 3})).isEqualTo(JournalPeek.UNKNOWN);
        assertThat(peek.branch(null)).isEqualTo(JournalPeek.UNKNOWN);
    }
}
