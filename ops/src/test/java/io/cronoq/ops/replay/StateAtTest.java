package io.cronoq.ops.replay;

import static io.cronoq.ops.replay.JournalRecorder.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.SharingPolicySet;
import io.cronoq.events.TaskState;
import io.cronoq.scheduler.replay.JournalFold;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The state of pools, groups and queues at an instant, folded from the journal up to it. */
class StateAtTest {

    @Test
    void midwayEveryGroupIsFullAndTwoTasksWaitInSubmissionOrder() {
        StateAt state = at(t(3_500));

        assertThat(state.pools()).singleElement().satisfies(p -> {
            assertThat(p.pool()).isEqualTo("batch");
            assertThat(p.workers()).isEqualTo(2);
            assertThat(p.capacity()).isEqualTo(3);
            assertThat(p.busy()).isEqualTo(3);
            assertThat(p.tasks()).containsEntry(TaskState.RUNNING, 3).containsEntry(TaskState.WAITING, 2);
        });
        assertThat(state.groups()).extracting(StateAt.GroupAt::labels, StateAt.GroupAt::workers, StateAt.GroupAt::capacity,
                        StateAt.GroupAt::busy, StateAt.GroupAt::waiting)
                .containsExactly(tuple(Map.of(), 1, 2, 2, 1), tuple(Fixtures.GPU, 1, 1, 1, 2));
        assertThat(state.queues().get("batch")).extracting(StateAt.Queued::taskId, StateAt.Queued::since,
                StateAt.Queued::waitedMs).containsExactly(tuple("g2", t(1_000), 2_500L), tuple("c3", t(3_000), 500L));
        assertThat(state.queues().get("batch").get(0).reason()).isNotBlank();
    }

    @Test
    void afterTheCancelAndTheFreedSlotTheQueueIsEmpty() {
        StateAt state = at(t(5_000));

        assertThat(state.queues()).isEmpty();
        assertThat(state.pools().get(0).tasks()).containsEntry(TaskState.CANCELLED, 1)
                .containsEntry(TaskState.SUCCEEDED, 1);
    }

    @Test
    void aDrainingWorkersSlotsLeaveCapacityWhileItsAttemptsFinish() {
        List<JournalEntry> journal = JournalRecorder.scripted()
                .script("t1", JournalRecorder.Run.succeeds(0, 10_000))
                .register(0, "batch", "w1", Fixtures.NONE, 2)
                .submit(100, "batch", "t1", Fixtures.NONE)
                .drain(1_000, "batch", "w1")
                .record();

        StateAt state = at(journal, t(1_500));

        assertThat(state.groups()).extracting(StateAt.GroupAt::workers, StateAt.GroupAt::capacity, StateAt.GroupAt::busy,
                StateAt.GroupAt::drainingBusy).containsExactly(tuple(0, 0, 0, 1));
        assertThat(state.pools().get(0).capacity()).isZero();
    }

    @Test
    void aPoolWhosePolicyCameBeforeAnyWorkerOrTaskIsInTheStateWithNone() {
        List<JournalEntry> journal = JournalRecorder.scripted()
                .share(0, SharingPolicySet.newBuilder().setPool("gpu").setTenant("prod").setWeight(3.0)
                        .setSetBy("admin").setSetAt(t(0)).build())
                .register(1_000, "batch", "w1", Fixtures.NONE, 1)
                .record();

        StateAt before = at(journal, t(500));
        StateAt after = at(journal, t(2_000));

        assertThat(before.pools()).as("the scheduler keeps the pool from its policy on, as its snapshot shows it")
                .extracting(StateAt.Pool::pool, StateAt.Pool::workers, StateAt.Pool::capacity, StateAt.Pool::busy)
                .containsExactly(tuple("gpu", 0, 0, 0));
        assertThat(before.groups()).isEmpty();
        assertThat(after.pools()).extracting(StateAt.Pool::pool).containsExactly("batch", "gpu");
        StringWriter table = new StringWriter();
        StateTable.write(before, new PrintWriter(table));
        assertThat(table.toString()).contains("gpu");
    }

    @Test
    void theTableAndTheJsonShowTheSameState() throws Exception {
        StateAt state = at(t(3_500));
        StringWriter table = new StringWriter();
        StringWriter json = new StringWriter();

        StateTable.write(state, new PrintWriter(table));
        StateJson.write(state, new PrintWriter(json));

        assertThat(table.toString()).contains("State at " + t(3_500)).contains("Queue of batch (2 waiting")
                .containsPattern("batch\\s+gpu=a100\\s+1\\s+1\\s+1\\s+0\\s+2\\s+0");
        JsonNode root = new ObjectMapper().readTree(json.toString());
        assertThat(root.get("pools").get(0).get("waiting").asInt()).isEqualTo(2);
        assertThat(root.get("queues").get("batch").get(1).get("taskId").asText()).isEqualTo("c3");
        assertThat(root.get("groups").get(1).get("labels").get("gpu").asText()).isEqualTo("a100");
    }

    private static StateAt at(Instant at) {
        return at(Fixtures.smallDay(), at);
    }

    private static StateAt at(List<JournalEntry> journal, Instant at) {
        JournalFold fold = new JournalFold();
        JournalClock clock = new JournalClock();
        for (JournalEntry e : journal) {
            if (clock.advance(e) <= at.toEpochMilli()) {
                fold.apply(e);
            }
        }
        return StateAt.of(fold, at);
    }
}
