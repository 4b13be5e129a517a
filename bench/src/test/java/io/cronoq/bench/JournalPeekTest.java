package io.cronoq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.JournalItem;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.schemas.AvroSerde;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.events.Journal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The journal peek counts a record's successful finishes, and names its assignments' tasks and heard times, from its
 * bytes, and declines what it cannot be sure of.
 */
class JournalPeekTest {

    private final InMemorySchemaRegistry registry = new InMemorySchemaRegistry();
    private final AvroSerde<JournalEntry> serde = AvroSerde.of(JournalEntry.class, registry);

    @Test
    void countsTheSucceededFinishesAmongAllEntriesOfARecord() {
        AttemptSucceeded success = AttemptSucceeded.newBuilder().setTaskId("t1").setPool("pool-a").setAttempt(1)
                .setWorkerId("w1").setGeneration(1).setAt(Instant.EPOCH).build();
        AttemptAssigned next = AttemptAssigned.newBuilder().setTaskId("t2").setPool("pool-a").setAttempt(1)
                .setWorkerId("w1").setGeneration(1).setGroup(java.util.Map.of("gpu", "a100"))
                .setPayload(java.nio.ByteBuffer.wrap(new byte[] {1, 2}))
                .setAssignedAt(Instant.EPOCH).build();
        byte[] oneFinished = serde.serialize("j", record(success, finished("t1", TaskState.SUCCEEDED), next));
        byte[] twoFinished = serde.serialize("j", record(finished("t3", TaskState.SUCCEEDED), new TaskWaiting("t4", "busy"),
                finished("t5", TaskState.SUCCEEDED)));
        byte[] failed = serde.serialize("j", record(finished("t6", TaskState.FAILED)));
        byte[] waiting = serde.serialize("j", Journal.entry("pool-a", Instant.EPOCH, new TaskWaiting("t2", "busy"), "why"));
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()));

        assertThat(peek.succeeded(oneFinished)).isEqualTo(1);
        assertThat(peek.succeeded(twoFinished)).isEqualTo(2);
        assertThat(peek.succeeded(failed)).isZero();
        assertThat(peek.succeeded(waiting)).isZero();
    }

    @Test
    void aRecordThatSaysWhenTheSchedulerHeardItsInputIsCountedToo() {
        JournalEntry heard = record(finished("t1", TaskState.SUCCEEDED), finished("t2", TaskState.SUCCEEDED));
        heard.setHeardAt(Instant.EPOCH.plusSeconds(3_600));
        byte[] bytes = serde.serialize("j", heard);
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()));

        assertThat(peek.succeeded(bytes)).isEqualTo(2);
    }

    @Test
    void namesTheTaskOfEachAssignmentWithWhenTheSchedulerHeardItsInputAsAFullDecodeDoes() {
        List<JournalItem> items = List.of(
                new JournalItem(assigned("t2"), null, null, null), // the first entry's input
                new JournalItem(finished("t1", TaskState.SUCCEEDED), "done", null, null),
                new JournalItem(assigned("t3"), null, Instant.ofEpochMilli(100), null), // heard when it happened
                new JournalItem(assigned("t4"), "why", Instant.ofEpochMilli(200), Instant.ofEpochMilli(205)),
                new JournalItem(assigned("t5"), null, null, null)); // t4's input
        JournalEntry entry = new JournalEntry("pool-a", Instant.ofEpochMilli(50), assigned("t1"), null, items,
                Instant.ofEpochMilli(3_600));
        byte[] bytes = serde.serialize("j", entry);
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()));
        List<String> told = new ArrayList<>();

        assertThat(peek.succeeded(bytes, (task, heardAtMs) -> told.add(task + "@" + heardAtMs))).isEqualTo(1);

        assertThat(told).containsExactly("t1@3600", "t2@3600", "t3@100", "t4@205", "t5@205");
        List<String> decoded = Journal.entries(entry).stream().filter(e -> e.getEvent() instanceof AttemptAssigned)
                .map(e -> ((AttemptAssigned) e.getEvent()).getTaskId() + "@" + Journal.heardAt(e).toEpochMilli()).toList();
        assertThat(told).isEqualTo(decoded);
        assertThat(peek.succeeded(bytes)).as("without a listener, only counted").isEqualTo(1);
    }

    @Test
    void aRecordOfManyAssignmentsNamesEachAsAFullDecodeDoes() {
        Object[] more = new Object[199];
        for (int i = 0; i < more.length; i++) {
            more[i] = assigned("t" + (i + 1));
        }
        JournalEntry entry = record(assigned("t0"), more);
        byte[] bytes = serde.serialize("j", entry);
        JournalPeek peek = new JournalPeek(registry.register(serde.subject("j"), serde.schema()));
        List<String> told = new ArrayList<>();

        assertThat(peek.succeeded(bytes, (task, heardAtMs) -> told.add(task + "@" + heardAtMs))).isZero();

        assertThat(told).hasSize(200).isEqualTo(Journal.entries(entry).stream()
                .map(e -> ((AttemptAssigned) e.getEvent()).getTaskId() + "@" + Journal.heardAt(e).toEpochMilli()).toList());
    }

    private static AttemptAssigned assigned(String task) {
        return AttemptAssigned.newBuilder().setTaskId(task).setPool("pool-a").setAttempt(1).setWorkerId("w1")
                .setGeneration(1).setGroup(java.util.Map.of("gpu", "a100")).setPayload(java.nio.ByteBuffer.wrap(new byte[8]))
                .setAssignedAt(Instant.EPOCH).build();
    }

    @Test
    void anotherSchemaIdOrBadBytesAreUnknownSoTheCallerDecodesInFull() {
        byte[] entry = serde.serialize("j", Journal.entry("p", Instant.EPOCH, finished("t", TaskState.SUCCEEDED), null));
        int id = registry.register(serde.subject("j"), serde.schema());
        byte[] truncated = java.util.Arrays.copyOf(entry, entry.length - 2);

        assertThat(new JournalPeek(id + 1).succeeded(entry)).isEqualTo(JournalPeek.UNKNOWN);
        assertThat(new JournalPeek(id).succeeded(truncated)).isEqualTo(JournalPeek.UNKNOWN);
        assertThat(new JournalPeek(id).succeeded(new byte[] {1, 2, 3})).isEqualTo(JournalPeek.UNKNOWN);
        assertThat(new JournalPeek(id).succeeded(null)).isEqualTo(JournalPeek.UNKNOWN);
    }

    private static TaskFinished finished(String task, TaskState state) {
        return new TaskFinished(task, 1, "w1", state == TaskState.SUCCEEDED ? AttemptOutcome.SUCCEEDED
                : AttemptOutcome.FAILED, state, state == TaskState.FAILED ? "boom" : null);
    }

    private static JournalEntry record(Object first, Object... more) {
        List<JournalItem> items = new ArrayList<>();
        for (Object event : more) {
            // every other entry comes from another input, with its own times, as when records span a commit
            int i = items.size();
            Instant at = i % 2 == 0 ? null : Instant.ofEpochMilli(i);
            Instant heardAt = at == null || i % 3 != 1 ? null : at.plusMillis(5);
            items.add(new JournalItem(event, null, at, heardAt));
        }
        return new JournalEntry("pool-a", Instant.EPOCH, first, null, items, null);
    }
}
