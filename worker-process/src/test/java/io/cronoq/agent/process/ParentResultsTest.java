package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cronoq.agent.TaskContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child's process reads its parents' results from the file {@code CRONOQ_PARENT_RESULTS} names: text as text,
 * other bytes as base64; the file is gone once the attempt ended, and a task without parents' results has no such
 * variable.
 */
@Timeout(60)
class ParentResultsTest {

    @TempDir
    Path dir;

    private ChildProcessRunner runner;

    @AfterEach
    void shutdown() {
        if (runner != null) {
            runner.shutdown();
        }
    }

    @Test
    void theReducerReadsEveryParentsResultFromTheFileAndTheFileIsGoneAfterwards() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        ProcessTaskHandler reducer = new ProcessTaskHandler(
                List.of("sh", "-c", "echo \"$CRONOQ_PARENT_RESULTS\"; cat \"$CRONOQ_PARENT_RESULTS\""), runner, null);
        Map<String, byte[]> results = Map.of(
                "etl:shard-1", "{\"rows\": 10}".getBytes(StandardCharsets.UTF_8),
                "etl:shard-2", new byte[] {(byte) 0xff, 0, 1});

        String out = new String(reducer.handle(context(results)), StandardCharsets.UTF_8);
        String path = out.substring(0, out.indexOf('\n'));
        JsonNode file = new ObjectMapper().readTree(out.substring(out.indexOf('\n') + 1));

        assertThat(file.path("etl:shard-1").asText()).isEqualTo("{\"rows\": 10}");
        assertThat(file.path("etl:shard-2").path("base64").asText()).isEqualTo("/wAB");
        assertThat(Files.exists(Path.of(path))).as("deleted when the attempt ended").isFalse();
    }

    @Test
    void aTaskWithoutParentsResultsHasNoVariable() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        ProcessTaskHandler lone = new ProcessTaskHandler(
                List.of("sh", "-c", "echo \"[${CRONOQ_PARENT_RESULTS:-none}]\""), runner, null);

        assertThat(new String(lone.handle(context(Map.of())), StandardCharsets.UTF_8)).isEqualTo("[none]\n");
    }

    private static TaskContext context(Map<String, byte[]> parentResults) {
        return AttemptContexts.of("etl:reduce", "batch", "w-1", null, parentResults);
    }
}
