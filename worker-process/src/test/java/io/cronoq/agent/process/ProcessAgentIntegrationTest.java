package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.AttemptId;
import io.cronoq.agent.Crash;
import io.cronoq.agent.CronoqWorker;
import io.cronoq.agent.SchedulerHarness;
import io.cronoq.events.AttemptFailed;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.testkit.KafkaBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process agent, built from its command line, against a real scheduler: attempts run as child processes with
 * the payload on stdin, a child over the memory ceiling fails alone while its neighbours keep running, and a
 * restarted agent neither runs a finished attempt again nor loses the one it was running.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessAgentIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static SchedulerHarness scheduler;

    @TempDir
    Path dir;

    private Agents agents;

    @BeforeAll
    static void startScheduler() throws Exception {
        scheduler = SchedulerHarness.start(broker);
    }

    @AfterAll
    static void stopScheduler() throws Exception {
        scheduler.close();
    }

    @AfterEach
    void stopAgents() {
        if (agents != null) {
            agents.close();
        }
    }

    @Test
    void aTaskRunsAsAChildProcessAndItsCompletionFreesTheSlot() {
        String pool = "proc-run";
        CronoqWorker worker = agent("--id", "proc-run-1", "--pool", pool, "--label", "zone=eu", "--slots", "1",
                "--", "sh", "-c", "cat; echo \" done $CRONOQ_TASK_ID#$CRONOQ_ATTEMPT $CRONOQ_POOL [$CRONOQ_GROUP]\"");

        scheduler.submit("proc-1", pool, Map.of(), "hello");
        scheduler.submit("proc-2", pool, Map.of(), "again");

        assertThat(scheduler.awaitFinished("proc-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.awaitFinished("proc-2", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.result("proc-1", 1)).isEqualTo("hello done proc-1#1 proc-run [zone=eu]\n");
        assertThat(scheduler.result("proc-2", 1)).isEqualTo("again done proc-2#1 proc-run [zone=eu]\n");
        assertThat(worker.state()).isEqualTo(CronoqWorker.State.ACTIVE);
    }

    @Test
    void aFailingChildFailsItsAttemptWithTheExitCodeAndStderr() {
        String pool = "proc-fail";
        agent("--id", "proc-fail-1", "--pool", pool, "--slots", "1", "--", "sh", "-c", "echo 'no model' >&2; exit 4");

        scheduler.submit("fail-1", pool, Map.of(), "");

        AttemptFailed failed = scheduler.awaitFailure("fail-1", 1);
        assertThat(failed.getError()).isEqualTo("exit code 4: no model");
        assertThat(failed.getRetryable()).isTrue();
    }

    @Test
    void aChildOverTheMemoryCeilingFailsAloneWhileItsNeighboursKeepRunning() throws Exception {
        String pool = "proc-memory";
        CronoqWorker worker = agent("--id", "proc-memory-1", "--pool", pool, "--slots", "3", "--memory-limit", "64Mi",
                "--work-dir", dir.toString(), "--",
                "sh", "-c", "read what; if [ \"$what\" = hog ]; then head -c 600M /dev/zero | tail; "
                        + "else while [ ! -f go ]; do sleep 0.05; done; echo fine; fi");

        scheduler.submit("neighbour-1", pool, Map.of(), "calm\n");
        scheduler.submit("neighbour-2", pool, Map.of(), "calm\n");
        scheduler.submit("hog", pool, Map.of(), "hog\n");

        AttemptFailed failed = scheduler.awaitFailure("hog", 1);
        assertThat(failed.getError()).contains("memory ceiling 64Mi exceeded");
        assertThat(failed.getRetryable()).isFalse();
        assertThat(scheduler.awaitFinished("hog", 1).getState()).isEqualTo(TaskState.FAILED);
        assertThat(worker.runningAttempts()).as("the neighbours still run")
                .contains(new AttemptId("neighbour-1", 1), new AttemptId("neighbour-2", 1));
        assertThat(scheduler.finished("neighbour-1", 1)).isNull();

        Files.createFile(dir.resolve("go"));

        assertThat(scheduler.awaitFinished("neighbour-1", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.awaitFinished("neighbour-2", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.result("neighbour-1", 1)).isEqualTo("fine\n");
    }

    @Test
    void aRestartedAgentNeitherRunsAFinishedAttemptAgainNorLosesTheOneItWasRunning() throws Exception {
        String pool = "proc-restart";
        Path runs = dir.resolve("runs.log");
        String[] args = {"--id", "proc-restart-1", "--pool", pool, "--slots", "2", "--work-dir", dir.toString(), "--",
                "sh", "-c", "echo \"$CRONOQ_TASK_ID:$CRONOQ_ATTEMPT\" >> runs.log; read what; "
                        + "if [ \"$what\" = wait ]; then while [ ! -f go ]; do sleep 0.05; done; fi; echo ok"};
        CronoqWorker first = agent(args);
        scheduler.submit("finished", pool, Map.of(), "quick\n");
        assertThat(scheduler.awaitFinished("finished", 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        scheduler.submit("running", pool, Map.of(), "wait\n");
        await().until(() -> lines(runs).contains("running:1"));

        // The agent dies without a word, and even its committed position is lost: the restarted agent re-reads the
        // whole partition, including the finished attempt's assignment.
        Crash.halt(first);
        TopicPartition partition = new TopicPartition(scheduler.prefix() + "assignments",
                io.cronoq.schemas.KeyPartitions.of("proc-restart-1", 4));
        broker.adminClient().alterConsumerGroupOffsets(CronoqWorker.groupId("proc-restart-1"),
                Map.of(partition, new OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS);
        Files.createFile(dir.resolve("go"));

        CronoqWorker second = agent(args);

        TaskFinished lost = scheduler.awaitFinished("running", 1);
        assertThat(lost.getOutcome()).isEqualTo(AttemptOutcome.LOST);
        assertThat(scheduler.awaitFinished("running", 2).getState()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(scheduler.assignments("running").get(1).getGeneration()).isEqualTo(second.generation());
        assertThat(second.generation()).isEqualTo(2);
        assertThat(lines(runs)).containsExactly("finished:1", "running:1", "running:2");
    }

    private CronoqWorker agent(String... args) {
        if (agents == null) {
            agents = new Agents(scheduler.bootstrap(), scheduler.prefix());
        }
        return agents.start(args);
    }

    private static List<String> lines(Path file) throws java.io.IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }
}
