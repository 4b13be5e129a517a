package io.cronoq.schemas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptStarted;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerFenced;
import io.cronoq.schemas.InMemorySchemaRegistry;
import io.cronoq.schemas.Topic;
import io.cronoq.schemas.Topics;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What readers of the journal share: the attempt, task and worker an event names, and decoding. */
class JournalTest {

    private static final Instant AT = Instant.parse("2026-01-01T10:00:00Z");

    @Test
    void anAttemptEventNamesItsTaskAttemptWorkerAndGeneration() {
        AttemptStarted started = new AttemptStarted("t-1", "pool", 2, "w-1", 7L, AT);
        assertThat(Journal.attemptOf(started)).isEqualTo(new Journal.Attempt("t-1", 2, "w-1", 7L));
        assertThat(Journal.attemptOf(started).key()).isEqualTo("t-1#2").isEqualTo(Journal.attemptKey("t-1", 2));
        TaskFinished finished = TaskFinished.newBuilder().setTaskId("t-1").setAttempt(2).setWorkerId("w-1")
                .setOutcome(AttemptOutcome.LOST).setState(TaskState.WAITING).build();
        assertThat(Journal.attemptOf(finished)).isEqualTo(new Journal.Attempt("t-1", 2, "w-1", null));
        WorkerFenced fenced = WorkerFenced.newBuilder().setWorkerId("w-1").setPool("pool").setStaleGeneration(3)
                .setReason("stale").setAt(AT).build();
        assertThat(Journal.attemptOf(fenced)).as("fenced for no attempt").isNull();
        assertThat(Journal.attemptOf(WorkerFenced.newBuilder(fenced).setTaskId("t-1").setAttempt(1).build()))
                .isEqualTo(new Journal.Attempt("t-1", 1, "w-1", 3L));
        assertThat(Journal.attemptOf(new TaskWaiting("t-1", "no slot"))).isNull();
    }

    @Test
    void anEventNamesItsTaskAndWorkerWhenItHasThem() {
        assertThat(Journal.taskId(new TaskWaiting("t-1", "no slot"))).isEqualTo("t-1");
        assertThat(Journal.workerId(new TaskWaiting("t-1", "no slot"))).isNull();
        assertThat(Journal.taskId(new WorkerAccepted("w-1", 1L))).isNull();
        assertThat(Journal.workerId(new WorkerAccepted("w-1", 1L))).isEqualTo("w-1");
        assertThatThrownBy(() -> Journal.taskId("text")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aBranchIndexIsItsKind() {
        var union = JournalEntry.getClassSchema().getField("event").schema().getTypes();
        for (int i = 0; i < union.size(); i++) {
            assertThat(JournalKind.ofBranch(i).type().getName()).isEqualTo(union.get(i).getFullName());
        }
        assertThat(Arrays.stream(JournalKind.values()).count()).isEqualTo(union.size());
        assertThatThrownBy(() -> JournalKind.ofBranch(union.size())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRecordDecodesWithTheJournalsSerde() {
        Topic<String, JournalEntry> journal = Topics.defaults(new InMemorySchemaRegistry()).journal();
        JournalEntry entry = Journal.entry("pool", AT, new TaskWaiting("t-1", "no slot"), null);
        byte[] bytes = journal.valueSerde().serializer().serialize(journal.name(), entry);
        assertThat(Journal.decode(journal, new ConsumerRecord<String, byte[]>(journal.name(), 0, 0L, "pool", bytes)))
                .isEqualTo(entry);
    }

    @Test
    void aRecordOfSeveralEntriesReadsAsEachInOrderUnderItsPoolAndTime() {
        TaskFinished finished = new TaskFinished("t-1", 1, "w-1", AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null);
        JournalEntry record = new JournalEntry("pool", AT, new TaskWaiting("t-2", "no slot"), "why",
                java.util.List.of(new io.cronoq.events.JournalItem(finished, null, null, null),
                        new io.cronoq.events.JournalItem(new TaskWaiting("t-3", "busy"), "because", null, null)), null);
        JournalEntry single = Journal.entry("pool", AT, finished, null);

        assertThat(Journal.entries(record)).containsExactly(
                Journal.entry("pool", AT, new TaskWaiting("t-2", "no slot"), "why"),
                Journal.entry("pool", AT, finished, null),
                Journal.entry("pool", AT, new TaskWaiting("t-3", "busy"), "because"));
        assertThat(Journal.entries(single)).containsExactly(single);
    }

    @Test
    void eachEntryOfARecordKeepsWhenTheSchedulerHeardItsInput() {
        Instant heard = AT.plusSeconds(3_600);
        TaskFinished finished = new TaskFinished("t-1", 1, "w-1", AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null);
        JournalEntry record = new JournalEntry("pool", AT, new TaskWaiting("t-2", "no slot"), null,
                java.util.List.of(new io.cronoq.events.JournalItem(finished, null, null, null)), heard);

        assertThat(Journal.entries(record)).extracting(JournalEntry::getAt, JournalEntry::getHeardAt)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(AT, heard));
        assertThat(Journal.entries(record)).extracting(Journal::heardAt).containsOnly(heard);
        assertThat(Journal.heardAt(Journal.entry("pool", AT, finished, null))).as("none recorded: its at").isEqualTo(AT);
    }

    @Test
    void anEntryOfAnotherInputCarriesItsOwnTimesAndTheEntriesAfterItShareThem() {
        Instant heard = AT.plusMillis(40);
        Instant second = AT.plusMillis(7);
        Instant secondHeard = AT.plusMillis(52);
        Instant third = AT.plusMillis(9);
        TaskFinished finished = new TaskFinished("t-1", 1, "w-1", AttemptOutcome.SUCCEEDED, TaskState.SUCCEEDED, null);
        JournalEntry record = new JournalEntry("pool", AT, new TaskWaiting("t-2", "no slot"), null, java.util.List.of(
                new io.cronoq.events.JournalItem(new TaskWaiting("t-3", "busy"), null, null, null),
                new io.cronoq.events.JournalItem(finished, null, second, secondHeard),
                new io.cronoq.events.JournalItem(new TaskWaiting("t-4", "busy"), null, null, null),
                new io.cronoq.events.JournalItem(new TaskWaiting("t-5", "busy"), "why", third, null)), heard);

        assertThat(Journal.entries(record)).extracting(JournalEntry::getAt, JournalEntry::getHeardAt).containsExactly(
                org.assertj.core.groups.Tuple.tuple(AT, heard),
                org.assertj.core.groups.Tuple.tuple(AT, heard),
                org.assertj.core.groups.Tuple.tuple(second, secondHeard),
                org.assertj.core.groups.Tuple.tuple(second, secondHeard),
                org.assertj.core.groups.Tuple.tuple(third, null));
        assertThat(Journal.entries(record)).extracting(Journal::heardAt)
                .containsExactly(heard, heard, secondHeard, secondHeard, third);
        assertThat(Journal.entries(record).get(4)).isEqualTo(
                Journal.entry("pool", third, new TaskWaiting("t-5", "busy"), "why"));
    }
}
