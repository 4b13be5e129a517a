package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.cronoq.agent.Gang;
import io.cronoq.agent.TaskContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gang member's process learns its gang from {@code CRONOQ_GANG_*}: id, size, its rank, and its peers' addresses
 * and worker ids in rank order; a task of its own gets none of them, not even ones the agent itself was started
 * with.
 */
@Timeout(60)
class GangEnvironmentTest {

    private static final Gang GANG = new Gang("g-7", 3, 2, List.of("10.0.0.1:29500", "gpu-02.example.net", "w-3"),
            List.of("w-1", "w-2", "w-3"));
    private static final String PRINT_GANG = "printf '%s|%s|%s|%s|%s' \"$CRONOQ_GANG_ID\" \"$CRONOQ_GANG_SIZE\" "
            + "\"$CRONOQ_GANG_RANK\" \"$CRONOQ_GANG_PEERS\" \"$CRONOQ_GANG_WORKERS\"";
    private static final String PRINT_GANG_SET = "env | grep '^CRONOQ_GANG_' | sort; true";

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
    void aMembersEnvironmentNamesItsGangRankAndPeersInRankOrder() {
        Map<String, String> env = ProcessTaskHandler.environment(context(GANG));

        assertThat(env).containsEntry("CRONOQ_GANG_ID", "g-7").containsEntry("CRONOQ_GANG_SIZE", "3")
                .containsEntry("CRONOQ_GANG_RANK", "2")
                .containsEntry("CRONOQ_GANG_PEERS", "10.0.0.1:29500,gpu-02.example.net,w-3")
                .containsEntry("CRONOQ_GANG_WORKERS", "w-1,w-2,w-3")
                .containsEntry("CRONOQ_TASK_ID", "t-3").containsEntry("CRONOQ_WORKER_ID", "w-3");
    }

    @Test
    void aLoneTasksEnvironmentHasNoGangVariables() {
        Map<String, String> env = ProcessTaskHandler.environment(context(null));

        assertThat(env).containsEntry("CRONOQ_TASK_ID", "t-3")
                .satisfies(e -> assertThat(e.keySet()).noneMatch(k -> k.startsWith("CRONOQ_GANG_")));
    }

    @Test
    void aMembersProcessPrintsItsGangFromItsEnvironment() throws IOException {
        runner = new ChildProcessRunner(null, dir);
        ProcessTaskHandler handler = new ProcessTaskHandler(List.of("sh", "-c", PRINT_GANG), runner, null);

        assertThat(new String(handler.handle(context(GANG)), StandardCharsets.UTF_8))
                .isEqualTo("g-7|3|2|10.0.0.1:29500,gpu-02.example.net,w-3|w-1,w-2,w-3");
    }

    @Test
    void aLoneTasksProcessSeesNoGangEvenWhenItsAgentRunsInOne() throws IOException {
        Map<String, String> agentEnv = new HashMap<>(System.getenv());
        agentEnv.put("CRONOQ_GANG_ID", "the-agents-own-gang");
        agentEnv.put("CRONOQ_GANG_RANK", "0");
        agentEnv.put("CRONOQ_TASK_ID", "the-agents-own-task");
        runner = new ChildProcessRunner(null, dir, ChildEnvironment.of(() -> agentEnv, null, null),
                ChildUser.agentsOwn());
        ProcessTaskHandler lone = new ProcessTaskHandler(List.of("sh", "-c", PRINT_GANG_SET + "; echo "
                + "\"task=$CRONOQ_TASK_ID\""), runner, null);
        ProcessTaskHandler member = new ProcessTaskHandler(List.of("sh", "-c", PRINT_GANG_SET), runner, null);

        assertThat(new String(lone.handle(context(null)), StandardCharsets.UTF_8)).isEqualTo("task=t-3\n");
        assertThat(new String(member.handle(context(GANG)), StandardCharsets.UTF_8)).contains("CRONOQ_GANG_ID=g-7\n")
                .contains("CRONOQ_GANG_RANK=2\n").doesNotContain("the-agents-own");
    }

    private static TaskContext context(Gang gang) {
        return AttemptContexts.of("t-3", "train", "w-3", gang, Map.of());
    }
}
