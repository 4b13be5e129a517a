package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Killing what a child left behind never takes from the child what it already printed. */
@Timeout(30)
class ProcessTreesTest {

    @Test
    void killingAnEndedChildLeavesItsOutputToBeRead() throws IOException, InterruptedException {
        Process process = new ProcessBuilder(ProcessTrees.inOwnSession(List.of("echo", "printed before the end")))
                .start();
        process.waitFor();

        // The runner kills the tree once the child ended, and its stream readers may not have started yet.
        ProcessTrees.kill(process);

        assertThat(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isEqualTo("printed before the end\n");
    }
}
