package io.cronoq.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerRegistered;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-minute history folded from journal entries, without Kafka or a browser. */
class JournalHistoryTest {

    private static final String POOL = "inference";
    private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
    private static final Map<String, String> GPU = Map.of("gpu", "a100");

    private final JournalHistory history = new JournalHistory(60);

    @Test
    void eachMinuteShowsCapacityBusyWaitingAndTheWaitsThatEndedInIt() {
        history.since(T0);
        register(5, "gpu-1", GPU, 2);
        register(10, "cpu-1", Map.of(), 4);
        submit(20, "a", GPU);
        submit(20, "b", GPU);
        submit(20, "c", GPU);
        assign(30, "a", 1, "gpu-1", GPU);           // waited 10 s
        assign(40, "b", 1, "gpu-1", GPU);           // waited 20 s
        finish(70, "a", 1, TaskState.SUCCEEDED);
        assign(75, "c", 1, "gpu-1", GPU);           // waited 55 s
        submit(150, "d", Map.of());
        assign(151, "d", 1, "cpu-1", Map.of());     // waited 1 s
        submit(160, "e", GPU);                      // the GPU group is full: e starves

        HistoryView view = history.history(POOL, 4, at(200)).orElseThrow();

        assertThat(view.start()).containsExactly(epoch(0), epoch(60), epoch(120), epoch(180));
        assertThat(view.since()).isEqualTo(T0.toString());
        assertThat(view.bucketSeconds()).isEqualTo(60);
        HistoryView.Series gpu = group(view, "gpu=a100");
        assertThat(gpu.capacity()).containsExactly(2, 2, 2, 2);
        assertThat(gpu.busy()).containsExactly(2, 2, 2, 2);
        assertThat(gpu.workers()).containsExactly(1, 1, 1, 1);
        assertThat(gpu.waiting()).containsExactly(1L, 0L, 1L, 1L);
        // c from 10:00:20 to the end of the first minute; e from 10:02:40 to 10:03:00, then to now (10:03:20).
        assertThat(gpu.oldestWaitingMs()).containsExactly(40_000L, null, 20_000L, 40_000L);
        assertThat(gpu.placed()).containsExactly(2, 1, 0, 0);
        assertThat(gpu.waitP50Ms()).containsExactly(10_000L, 55_000L, null, null);
        assertThat(gpu.waitP90Ms()).containsExactly(20_000L, 55_000L, null, null);
        assertThat(gpu.waitP99Ms()).containsExactly(20_000L, 55_000L, null, null);

        HistoryView.Series cpu = group(view, "");
        assertThat(cpu.capacity()).containsExactly(4, 4, 4, 4);
        assertThat(cpu.busy()).containsExactly(0, 0, 1, 1);
        assertThat(cpu.waiting()).as("a task needing gpu=a100 is not one the unlabelled group could serve")
                .containsExactly(0L, 0L, 0L, 0L);
        assertThat(cpu.waitP50Ms()).containsExactly(null, null, 1_000L, null);

        assertThat(view.total().capacity()).containsExactly(6, 6, 6, 6);
        assertThat(view.total().busy()).containsExactly(2, 2, 3, 3);
        assertThat(view.total().waiting()).containsExactly(1L, 0L, 1L, 1L);
        assertThat(view.total().placed()).containsExactly(2, 1, 1, 0);
    }

    @Test
    void aRetriedTaskWaitsFromItsPreviousAttemptsEnd() {
        history.since(T0);
        register(0, "gpu-1", GPU, 1);
        submit(1, "a", GPU);
        assign(2, "a", 1, "gpu-1", GPU);
        finish(10, "a", 1, TaskState.WAITING);      // failed, to be retried
        assign(40, "a", 2, "gpu-1", GPU);

        HistoryView.Series gpu = group(history.history(POOL, 1, at(50)).orElseThrow(), "gpu=a100");

        assertThat(gpu.placed()).containsExactly(2);
        assertThat(gpu.waitP50Ms()).as("1 s, then 30 s").containsExactly(1_000L);
        assertThat(gpu.waitP99Ms()).containsExactly(30_000L);
        assertThat(gpu.busy()).containsExactly(1);
    }

    @Test
    void aGroupWhoseWorkersLeftKeepsItsLineAtZeroWhileItsTasksWait() {
        history.since(T0);
        register(0, "gpu-1", GPU, 2);
        apply(30, WorkerRemoved.newBuilder().setWorkerId("gpu-1").setGeneration(1).setState(WorkerState.LEFT)
                .setReason("stopped").build());
        submit(90, "a", GPU);

        HistoryView.Series gpu = group(history.history(POOL, 3, at(150)).orElseThrow(), "gpu=a100");

        assertThat(gpu.capacity()).containsExactly(0, 0, 0);
        assertThat(gpu.waiting()).containsExactly(0L, 1L, 1L);
        assertThat(gpu.oldestWaitingMs()).containsExactly(null, 30_000L, 60_000L);
    }

    @Test
    void itKeepsOnlyTheLastHourAndCarriesQuietMinutesForward() {
        history.since(T0);
        register(0, "cpu-1", Map.of(), 3);
        for (int minute = 0; minute < 180; minute += 7) {
            submit(minute * 60, "t" + minute, Map.of());
        }
        Instant now = at(180 * 60 + 5);

        HistoryView view = history.history(POOL, 60, now).orElseThrow();

        assertThat(view.start()).hasSize(60);
        assertThat(view.start().get(59)).isEqualTo(now.getEpochSecond() / 60 * 60);
        // 26 submissions, one every 7 minutes from 10:00; none placed (the worker's slots are never
        // offered in this journal); every minute, quiet or not, shows all that had arrived by its end.
        long firstMinute = view.start().get(0) / 60 - T0.getEpochSecond() / 60;
        for (int i = 0; i < 60; i++) {
            long minute = firstMinute + i;
            assertThat(view.total().waiting().get(i)).as("minute %d", minute).isEqualTo(minute / 7 + 1);
            assertThat(view.total().capacity().get(i)).isEqualTo(3);
        }
        assertThat(history.history(POOL, 90, now).orElseThrow().start()).as("at most the hour it keeps").hasSize(60);
    }

    @Test
    void anUnknownPoolHasNoHistoryAndNothingIsServedBeforeTheHistoryIsBuilt() {
        assertThatThrownBy(() -> history.history(POOL, 60, T0)).isInstanceOf(ApiException.class)
                .hasMessageContaining("being built");
        history.since(T0);
        assertThat(history.history("nobody", 60, T0)).isEmpty();
    }

    @Test
    void percentilesAreNearestRank() {
        List<Long> values = Arrays.asList(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        assertThat(JournalHistory.percentile(values, 50)).isEqualTo(5L);
        assertThat(JournalHistory.percentile(values, 90)).isEqualTo(9L);
        assertThat(JournalHistory.percentile(values, 99)).isEqualTo(10L);
        assertThat(JournalHistory.percentile(List.of(), 50)).isNull();
    }

    private static HistoryView.Series group(HistoryView view, String key) {
        return view.groups().stream().filter(g -> g.key().equals(key)).findFirst().orElseThrow().series();
    }

    private void register(int second, String worker, Map<String, String> labels, int slots) {
        apply(second, WorkerRegistered.newBuilder().setWorkerId(worker).setPool(POOL).setLabels(labels)
                .setSlots(slots).setRegisteredAt(at(second)).build());
        apply(second, WorkerAccepted.newBuilder().setWorkerId(worker).setGeneration(1).build());
    }

    private void submit(int second, String task, Map<String, String> labels) {
        apply(second, TaskSubmitted.newBuilder().setTaskId(task).setPool(POOL).setLabels(labels)
                .setSubmittedAt(at(second)).build());
    }

    private void assign(int second, String task, int attempt, String worker, Map<String, String> group) {
        apply(second, AttemptAssigned.newBuilder().setTaskId(task).setPool(POOL).setAttempt(attempt)
                .setWorkerId(worker).setGeneration(1).setGroup(group).setAssignedAt(at(second)).build());
    }

    private void finish(int second, String task, int attempt, TaskState state) {
        apply(second, TaskFinished.newBuilder().setTaskId(task).setAttempt(attempt).setWorkerId("gpu-1")
                .setOutcome(state == TaskState.SUCCEEDED ? AttemptOutcome.SUCCEEDED : AttemptOutcome.FAILED)
                .setState(state).build());
    }

    private void apply(int second, Object event) {
        history.apply(JournalEntry.newBuilder().setPool(POOL).setAt(at(second)).setEvent(event).build());
    }

    private static Instant at(int second) {
        return T0.plus(Duration.ofSeconds(second));
    }

    private static long epoch(int second) {
        return at(second).getEpochSecond();
    }
}
