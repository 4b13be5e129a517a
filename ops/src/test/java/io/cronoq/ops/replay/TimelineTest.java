package io.cronoq.ops.replay;

import static io.cronoq.ops.replay.JournalRecorder.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.schemas.events.Journal;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskForgotten;
import io.cronoq.events.TaskState;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-task timeline of a journal, and its CSV and JSON Lines forms. */
class TimelineTest {

    private final List<Timeline.Task> tasks = Timeline.of(Fixtures.smallDay());

    @Test
    void eachAttemptHasItsWorkerGroupTimesWaitAndRunTime() {
        assertThat(tasks).extracting(Timeline.Task::taskId).containsExactly("c1", "c2", "g1", "g2", "c3");
        assertThat(tasks).flatExtracting(Timeline.Task::attempts)
                .extracting(Timeline.Attempt::attempt, Timeline.Attempt::workerId, Timeline.Attempt::group,
                        Timeline.Attempt::assignedAt, Timeline.Attempt::startedAt, Timeline.Attempt::finishedAt,
                        Timeline.Attempt::waitMs, Timeline.Attempt::runMs, Timeline.Attempt::outcome)
                .containsExactly(
                        tuple(1, "cpu-1", Map.of(), t(1_000), t(2_000), t(6_000), 0L, 4_000L, AttemptOutcome.SUCCEEDED),
                        tuple(1, "cpu-1", Map.of(), t(1_000), t(2_000), t(8_000), 0L, 6_000L, AttemptOutcome.FAILED),
                        tuple(2, "cpu-1", Map.of(), t(8_000), t(9_000), t(10_000), 0L, 1_000L, AttemptOutcome.SUCCEEDED),
                        tuple(1, "gpu-1", Fixtures.GPU, t(1_000), t(2_000), t(5_000), 0L, 3_000L, AttemptOutcome.SUCCEEDED),
                        tuple(1, "gpu-1", Fixtures.GPU, t(5_000), t(6_000), t(12_000), 4_000L, 6_000L,
                                AttemptOutcome.SUCCEEDED));
        assertThat(tasks).extracting(Timeline.Task::state).containsExactly(TaskState.SUCCEEDED, TaskState.SUCCEEDED,
                TaskState.SUCCEEDED, TaskState.SUCCEEDED, TaskState.CANCELLED);
    }

    @Test
    void aTaskForgottenAtTheEndOfItsRetentionStaysInTheTimeline() {
        List<JournalEntry> day = new ArrayList<>(Fixtures.smallDay());
        day.add(Journal.entry("batch", t(7 * 24 * 3_600_000L), new TaskForgotten("c1", TaskState.SUCCEEDED, t(6_000)),
                "kept 7d after it finished (cronoq.task.retention.ms)"));

        assertThat(Timeline.of(day)).extracting(Timeline.Task::taskId).containsExactly("c1", "c2", "g1", "g2", "c3");
    }

    @Test
    void aRetryIsReadyWhenItsPreviousAttemptEnded() {
        Timeline.Attempt retry = tasks.get(1).attempts().get(1);
        assertThat(retry.readyAt()).isEqualTo(t(8_000));
    }

    @Test
    void csvHasOneRowPerAttemptAndOneForATaskThatNeverRan() {
        String csv = write(TimelineFormat.CSV);

        List<String> lines = csv.lines().toList();
        assertThat(lines.get(0)).isEqualTo(String.join(",", TimelineCsv.HEADER));
        assertThat(lines).hasSize(1 + 5 + 1);
        assertThat(lines.get(5)).isEqualTo("batch,g2,gpu=a100,SUCCEEDED," + t(1_000) + ",1,gpu-1,gpu=a100,"
                + t(1_000) + "," + t(5_000) + "," + t(6_000) + "," + t(12_000) + ",4000,6000,SUCCEEDED,");
        assertThat(lines.get(6)).startsWith("batch,c3,,CANCELLED," + t(3_000) + ",,,," + t(3_000) + ",,,,,,,");
        assertThat(csv).contains("\r\n");
    }

    @Test
    void csvQuotesCellsWithCommasAndQuotes() {
        assertThat(TimelineCsv.escape("gpu=a100,mem=high")).isEqualTo("\"gpu=a100,mem=high\"");
        assertThat(TimelineCsv.escape("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(TimelineCsv.escape(null)).isEmpty();
    }

    @Test
    void jsonLinesHasOneObjectPerTaskWithItsAttempts() throws Exception {
        List<String> lines = write(TimelineFormat.JSONL).lines().toList();

        assertThat(lines).hasSize(5);
        JsonNode c2 = new ObjectMapper().readTree(lines.get(1));
        assertThat(c2.get("taskId").asText()).isEqualTo("c2");
        assertThat(c2.get("state").asText()).isEqualTo("SUCCEEDED");
        assertThat(c2.get("attempts")).hasSize(2);
        assertThat(c2.get("attempts").get(0).get("outcome").asText()).isEqualTo("FAILED");
        assertThat(c2.get("attempts").get(0).get("runMs").asLong()).isEqualTo(6_000);
        assertThat(c2.get("attempts").get(1).get("assignedAt").asText()).isEqualTo(t(8_000).toString());
        JsonNode g2 = new ObjectMapper().readTree(lines.get(3));
        assertThat(g2.get("attempts").get(0).get("group").get("gpu").asText()).isEqualTo("a100");
        assertThat(g2.get("attempts").get(0).get("waitMs").asLong()).isEqualTo(4_000);
    }

    private String write(TimelineFormat format) {
        StringWriter text = new StringWriter();
        format.write(tasks, new PrintWriter(text));
        return text.toString();
    }

    @Test
    void aChildsWaitCountsFromWhenItsParentReleasedItNotFromItsSubmission() {
        JournalRecorder r = JournalRecorder.scripted().register(0, "etl", "w1", Map.of(), 1);
        r.script("extract", JournalRecorder.Run.succeeds(0, 10_000));
        r.script("load", JournalRecorder.Run.succeeds(0, 5_000));
        r.submit(0, JournalRecorder.task(0, "etl", "extract").build());
        r.submit(0, JournalRecorder.task(0, "etl", "load").setAfter(List.of(new io.cronoq.events.Dependency(
                "extract", null, io.cronoq.events.ParentCondition.SUCCEEDED))).build());

        Timeline.Task load = Timeline.of(r.record()).stream().filter(t -> t.taskId().equals("load")).findFirst()
                .orElseThrow();

        assertThat(load.attempts()).singleElement().satisfies(a -> {
            assertThat(a.readyAt()).as("released when extract succeeded").isEqualTo(t(10_000));
            assertThat(a.waitMs()).as("not the 10 s it was blocked").isZero();
        });
    }
}
