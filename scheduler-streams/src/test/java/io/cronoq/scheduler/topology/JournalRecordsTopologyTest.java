package io.cronoq.scheduler.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.schemas.events.Journal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a journal record holds. The test driver commits after every input, so per commit (the default)
 * a record holds every entry one input caused, in order, under its pool and time; a record spanning
 * several inputs is checked on a real broker ({@code JournalPerCommitTest}).
 */
class JournalRecordsTopologyTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final String POOL = "cpu";
    private final SchedulerDriver scheduler = new SchedulerDriver();

    @AfterEach
    void close() {
        scheduler.close();
    }

    @Test
    void aSuccessThatFreesASlotIsOneRecordOfTheSuccessTheFinishAndTheNextAssignment() {
        scheduler.send(WorkerRegistered.newBuilder().setWorkerId("w1").setPool(POOL).setLabels(Map.of()).setSlots(1)
                .setRegisteredAt(T0).build());
        scheduler.send(task("t1")).send(task("t2"));
        List<JournalEntry> setUp = scheduler.journalRecords();
        AttemptAssigned first = (AttemptAssigned) scheduler.assignments().stream().map(kv -> kv.value)
                .filter(AttemptAssigned.class::isInstance).findFirst().orElseThrow();

        scheduler.send(AttemptSucceeded.newBuilder().setTaskId(first.getTaskId()).setPool(POOL).setAttempt(1)
                .setWorkerId("w1").setGeneration(first.getGeneration()).setAt(T0.plusSeconds(1)).build());
        List<JournalEntry> records = scheduler.journalRecords();

        assertThat(setUp).as("the registration, and each submission, one record each").hasSize(3);
        assertThat(Journal.entries(setUp.get(0))).extracting(e -> e.getEvent().getClass().getSimpleName())
                .containsExactly("WorkerRegistered", "WorkerAccepted");
        assertThat(Journal.entries(setUp.get(1))).extracting(e -> e.getEvent().getClass().getSimpleName())
                .containsExactly("TaskSubmitted", "AttemptAssigned");
        assertThat(Journal.entries(setUp.get(2))).extracting(e -> e.getEvent().getClass().getSimpleName())
                .containsExactly("TaskSubmitted", "TaskWaiting");
        assertThat(records).singleElement().satisfies(r -> {
            assertThat(r.getPool()).isEqualTo(POOL);
            assertThat(Journal.entries(r)).extracting(e -> e.getEvent().getClass().getSimpleName())
                    .containsExactly("AttemptSucceeded", "TaskFinished", "AttemptAssigned");
            assertThat(Journal.entries(r)).allSatisfy(e -> {
                assertThat(e.getPool()).isEqualTo(POOL);
                assertThat(e.getAt()).isEqualTo(r.getAt());
                assertThat(e.getMore()).isEmpty();
            });
        });
        assertThat(((AttemptAssigned) Journal.entries(records.get(0)).get(2).getEvent()).getTaskId()).isEqualTo("t2");
    }

    @Test
    void perEntryWritesEachEntryAsARecordOfItsOwnForReadersOfTheEarlierRelease() {
        try (SchedulerDriver perEntry = new SchedulerDriver(Map.of("cronoq.journal.records", "per-entry"), T0)) {
            perEntry.send(WorkerRegistered.newBuilder().setWorkerId("w1").setPool(POOL).setLabels(Map.of()).setSlots(1)
                    .setRegisteredAt(T0).build());
            perEntry.send(task("t1"));

            assertThat(perEntry.journalRecords()).extracting(r -> r.getEvent().getClass().getSimpleName())
                    .containsExactly("WorkerRegistered", "WorkerAccepted", "TaskSubmitted", "AttemptAssigned");
            perEntry.send(task("t2"));
            assertThat(perEntry.journalRecords()).hasSize(2).allSatisfy(r -> assertThat(r.getMore()).isEmpty());
        }
    }

    @Test
    void anUnknownWayOfWritingTheJournalIsRefusedNamingTheSetting() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SchedulerDriver(
                        Map.of("cronoq.journal.records", "batched"), T0).close())
                .hasMessageContaining("cronoq.journal.records is 'batched'").hasMessageContaining("per-commit")
                .hasMessageContaining("per-input").hasMessageContaining("per-entry");
    }

    private static TaskSubmitted task(String id) {
        return TaskSubmitted.newBuilder().setTaskId(id).setPool(POOL).setLabels(Map.of())
                .setPayload(ByteBuffer.wrap(id.getBytes())).setSubmittedAt(T0).build();
    }
}
