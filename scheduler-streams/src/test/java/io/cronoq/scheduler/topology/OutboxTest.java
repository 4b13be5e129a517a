package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerFenced;
import io.cronoq.schemas.events.Assignments;
import io.cronoq.schemas.events.Journal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/** How the outbox gathers journal entries and worker events into records, and when it hands them on. */
class OutboxTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final List<Record<String, JournalEntry>> journal = new ArrayList<>();
    private final List<Record<String, AssignmentEvent>> assignments = new ArrayList<>();
    /** What the sinks get, read back by Avro's own reader: the bodies must be Avro's bytes. */
    private final Outbox.Sinks sinks = new Outbox.Sinks() {
        @Override
        public void journal(Record<String, byte[]> record) {
            journal.add(record.withValue(Bodies.journal(record.value())));
        }

        @Override
        public void assignments(Record<String, byte[]> record) {
            assignments.add(record.withValue(Bodies.assignments(record.value())));
        }
    };

    @Test
    void perCommitAPoolsEntriesAndAWorkersEventsWaitForTheCommitEachEntryWithItsInputsTimes() {
        Outbox outbox = new Outbox(JournalRecords.PER_COMMIT, AssignmentRecords.PER_COMMIT, sinks);
        Instant second = T0.plusMillis(5);
        Instant heard = T0.plusMillis(30);
        outbox.journal("a", T0, null, waiting("t1"), null);
        outbox.journal("a", T0, null, waiting("t2"), "why");
        outbox.tell("w1", fenced("w1", 1), T0.toEpochMilli());
        outbox.endInput();
        outbox.journal("b", second, heard, waiting("t3"), null);
        outbox.journal("a", second, heard, waiting("t4"), null);
        outbox.tell("w1", fenced("w1", 2), second.toEpochMilli());
        outbox.tell("w2", fenced("w2", 3), second.toEpochMilli());
        outbox.endInput();

        assertThat(journal).as("nothing before the commit").isEmpty();
        assertThat(assignments).isEmpty();
        assertThat(outbox.heldBytes()).as("what waits for the commit, estimated")
                .isEqualTo(4 * RecordBudget.bytesOf(waiting("t1"), null) + 3 * RecordBudget.bytesOf(fenced("w1", 1), null)
                        + "why".length() * 4L);
        outbox.commit();
        assertThat(outbox.heldBytes()).isZero();

        assertThat(journal).extracting(Record::key).containsExactly("a", "b");
        Record<String, JournalEntry> a = journal.get(0);
        assertThat(a.timestamp()).as("the latest input time it holds").isEqualTo(second.toEpochMilli());
        assertThat(Journal.entries(a.value())).extracting(e -> ((TaskWaiting) e.getEvent()).getTaskId(),
                        JournalEntry::getAt, JournalEntry::getHeardAt, JournalEntry::getCause)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("t1", T0, null, null),
                        org.assertj.core.groups.Tuple.tuple("t2", T0, null, "why"),
                        org.assertj.core.groups.Tuple.tuple("t4", second, heard, null));
        assertThat(a.value().getMore()).extracting(i -> i.getAt())
                .as("only the entry of another input carries times").containsExactly(null, second);
        assertThat(Journal.entries(journal.get(1).value())).singleElement()
                .satisfies(e -> assertThat(Journal.heardAt(e)).isEqualTo(heard));

        assertThat(assignments).extracting(Record::key).containsExactly("w1", "w2");
        assertThat(Assignments.events(assignments.get(0).value()))
                .extracting(e -> ((WorkerFenced) e).getStaleGeneration()).containsExactly(1L, 2L);
        assertThat(assignments.get(0).timestamp()).isEqualTo(second.toEpochMilli());

        journal.clear();
        assignments.clear();
        outbox.commit();
        assertThat(journal).as("a commit with nothing gathered sends nothing").isEmpty();
        assertThat(assignments).isEmpty();
    }

    @Test
    void aRecordThatWouldOutgrowItsBudgetGoesOnInTheKeysNextRecordInOrder() {
        Outbox outbox = new Outbox(JournalRecords.PER_COMMIT, AssignmentRecords.PER_COMMIT, sinks);
        int payload = (int) (RecordBudget.RECORD_BYTES / 3);
        for (int i = 0; i < 7; i++) {
            outbox.journal("a", T0, null, submitted("t" + i, payload), null);
        }
        assertThat(journal).as("three full records sent as soon as they filled").hasSize(3);
        assertThat(outbox.heldBytes()).as("only the open record's").isEqualTo(RecordBudget.bytesOf(
                submitted("t6", payload), null));
        outbox.commit();

        assertThat(journal).hasSize(4).extracting(Record::key).containsOnly("a");
        assertThat(journal.stream().flatMap(r -> Journal.entries(r.value()).stream())
                .map(e -> ((TaskSubmitted) e.getEvent()).getTaskId()))
                .containsExactly("t0", "t1", "t2", "t3", "t4", "t5", "t6");
        assertThat(journal).allSatisfy(r -> assertThat(r.value().getMore()).hasSizeLessThanOrEqualTo(1));
    }

    @Test
    void perInputAndPerEntryAndPerEventSendAtTheEndOfEachInput() {
        Outbox perInput = new Outbox(JournalRecords.PER_INPUT, AssignmentRecords.PER_EVENT, sinks);
        perInput.journal("a", T0, null, waiting("t1"), null);
        perInput.journal("a", T0, null, waiting("t2"), null);
        perInput.tell("w1", fenced("w1", 1), T0.toEpochMilli());
        perInput.tell("w1", fenced("w1", 2), T0.toEpochMilli());
        assertThat(assignments).as("one record per event, at once after the first").hasSize(1);
        perInput.endInput();

        assertThat(journal).singleElement().satisfies(r -> assertThat(Journal.entries(r.value())).hasSize(2));
        assertThat(assignments).hasSize(2).allSatisfy(r -> assertThat(r.value().getMore()).isEmpty());

        journal.clear();
        Outbox perEntry = new Outbox(JournalRecords.PER_ENTRY, AssignmentRecords.PER_COMMIT, sinks);
        perEntry.journal("a", T0, null, waiting("t1"), null);
        perEntry.journal("a", T0, null, waiting("t2"), null);
        perEntry.endInput();
        assertThat(journal).hasSize(2).allSatisfy(r -> assertThat(r.value().getMore()).isEmpty());
    }

    @Test
    void discardedRecordsAreNeverSent() {
        Outbox outbox = new Outbox(JournalRecords.PER_COMMIT, AssignmentRecords.PER_COMMIT, sinks);
        outbox.journal("a", T0, null, waiting("t1"), null);
        outbox.tell("w1", fenced("w1", 1), T0.toEpochMilli());
        outbox.discard();
        outbox.commit();

        assertThat(journal).isEmpty();
        assertThat(assignments).isEmpty();
    }

    private static TaskWaiting waiting(String taskId) {
        return new TaskWaiting(taskId, "no slot");
    }

    private static WorkerFenced fenced(String worker, long generation) {
        return WorkerFenced.newBuilder().setWorkerId(worker).setPool("a").setStaleGeneration(generation)
                .setReason("stale").setAt(T0).build();
    }

    private static TaskSubmitted submitted(String taskId, int payloadBytes) {
        return TaskSubmitted.newBuilder().setTaskId(taskId).setPool("a").setLabels(Map.of())
                .setPayload(ByteBuffer.wrap(new byte[payloadBytes])).setSubmittedAt(T0).build();
    }
}
