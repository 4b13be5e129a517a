package io.cronoq.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.Crash;
import io.cronoq.agent.CronoqWorker;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptRevoked;
import io.cronoq.events.GangPlacement;
import io.cronoq.events.GangSubmitted;
import io.cronoq.events.TaskState;
import io.cronoq.events.TaskSubmitted;
import io.cronoq.events.TaskWaiting;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.testing.Inputs;
import io.cronoq.scheduler.testing.JournalTail;
import io.cronoq.scheduler.testing.RunningScheduler;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gangs on a real broker with process workers built from their command line: the members of a spread gang learn
 * their rank and their peers from the environment and agree on them; a worker that dies mid-run takes its member
 * down and the others are revoked (their processes killed), and the gang runs again whole and succeeds; a gang behind a stream of single
 * tasks on a busy pool reserves its slots and starts.
 */
@Tag("integration")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class GangProcessIntegrationTest {

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    private static RunningScheduler scheduler;
    private static Inputs inputs;
    private static JournalTail journal;

    @TempDir
    Path dir;

    private Agents agents;

    @BeforeAll
    static void startScheduler() {
        scheduler = RunningScheduler.on(broker).name("gangs").heartbeatTimeout(Duration.ofSeconds(4))
                .set(SchedulerConfig.GANG_RESERVE_AFTER_MS, "2000").start();
        inputs = scheduler.inputs();
        journal = scheduler.journal();
    }

    @AfterAll
    static void stopScheduler() {
        journal.close();
        inputs.close();
        scheduler.close();
    }

    @AfterEach
    void stopAgents() {
        if (agents != null) {
            agents.close();
        }
    }

    @Test
    void theMembersOfASpreadGangLearnTheirRanksAndPeersAndAgree() throws Exception {
        String pool = "gang-ranks";
        for (int w = 0; w < 4; w++) {
            agent("--id", "ranks-" + w, "--pool", pool, "--slots", "2", "--address", "10.0.0." + w + ":29500",
                    "--work-dir", dir.toString(), "--", "sh", "-c",
                    "echo \"$CRONOQ_GANG_ID $CRONOQ_GANG_RANK/$CRONOQ_GANG_SIZE $CRONOQ_GANG_PEERS $CRONOQ_GANG_WORKERS\"");
        }

        inputs.send(pool, gang("train", pool, 4, GangPlacement.SPREAD, ""));

        List<String> lines = new ArrayList<>();
        for (int rank = 0; rank < 4; rank++) {
            assertThat(journal.awaitFinished("train-" + rank, 1).getState()).isEqualTo(TaskState.SUCCEEDED);
            lines.add(journal.result("train-" + rank, 1).trim());
        }
        List<String> workers = new ArrayList<>();
        for (int rank = 0; rank < 4; rank++) {
            workers.add(journal.assignments("train-" + rank).get(0).getWorkerId());
        }
        assertThat(workers).as("one member per worker").doesNotHaveDuplicates();
        String peers = String.join(",", workers.stream().map(w -> "10.0.0." + w.substring(6) + ":29500").toList());
        for (int rank = 0; rank < 4; rank++) {
            assertThat(lines.get(rank)).as("member %d's view", rank)
                    .isEqualTo("train " + rank + "/4 " + peers + " " + String.join(",", workers));
        }
    }

    @Test
    void aWorkerThatDiesMidRunRevokesTheOtherMembersAndTheGangRunsAgainWholeAndSucceeds() throws Exception {
        String pool = "gang-crash";
        List<CronoqWorker> workers = new ArrayList<>();
        for (int w = 0; w < 5; w++) {
            workers.add(agent("--id", "crash-" + w, "--pool", pool, "--slots", "1", "--work-dir", dir.toString(), "--",
                    "sh", "-c", "echo $$ > pid-$CRONOQ_TASK_ID-$CRONOQ_ATTEMPT; "
                            + "echo \"$CRONOQ_TASK_ID:$CRONOQ_ATTEMPT\" >> runs.log; "
                            + "while [ ! -f go-$CRONOQ_ATTEMPT ]; do sleep 0.05; done; echo ok"));
        }
        inputs.send(pool, gang("job", pool, 4, GangPlacement.SPREAD, ""));
        await().atMost(Duration.ofSeconds(60)).until(() -> lines(dir.resolve("runs.log")).size() == 4);
        String victim = journal.assignments("job-2").get(0).getWorkerId();

        Crash.halt(workers.get(Integer.parseInt(victim.substring(6)))); // dies without a word: evicted when silent

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(journal.events(AttemptRevoked.class))
                .filteredOn(r -> r.getTaskId().startsWith("job-")).hasSize(3)
                .allSatisfy(r -> assertThat(r.getReason()).isEqualTo("gang job: member job-2 was lost with its worker")));
        for (AttemptRevoked revoked : journal.events(AttemptRevoked.class)) {
            if (revoked.getTaskId().startsWith("job-")) {
                long pid = Long.parseLong(Files.readString(
                        dir.resolve("pid-" + revoked.getTaskId() + "-" + revoked.getAttempt())).trim());
                await("revoked member " + revoked.getTaskId() + "'s process killed").atMost(Duration.ofSeconds(10))
                        .until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
            }
        }
        Files.createFile(dir.resolve("go-2"));
        for (int rank = 0; rank < 4; rank++) {
            assertThat(journal.awaitFinished("job-" + rank, 2).getState()).isEqualTo(TaskState.SUCCEEDED);
            assertThat(journal.assignments("job-" + rank).get(1).getWorkerId()).isNotEqualTo(victim);
        }
        assertThat(lines(dir.resolve("runs.log"))).filteredOn(l -> l.endsWith(":2")).hasSize(4);
    }

    @Test
    void aGangBehindAStreamOfSingleTasksReservesItsSlotsAndStarts() throws Exception {
        String pool = "gang-busy";
        agent("--id", "busy-0", "--pool", pool, "--slots", "3", "--work-dir", dir.toString(), "--",
                "sh", "-c", "sleep 0.4; echo ok");
        Instant until = Instant.now().plusSeconds(30);
        int next = 0;
        for (; next < 6; next++) {
            inputs.submit("single-" + next, pool, Map.of(), "");
        }
        inputs.send(pool, gang("late", pool, 3, GangPlacement.ANY, ""));
        Instant submitted = Instant.now();
        while (journal.assignments("late-0").isEmpty() && Instant.now().isBefore(until)) {
            inputs.submit("single-" + next++, pool, Map.of(), ""); // always a single task waiting for the next slot
            Thread.sleep(150);
        }

        assertThat(journal.assignments("late-0")).as("the gang started").hasSize(1);
        assertThat(Duration.between(submitted, Instant.now())).as("within the reservation wait and a few runs")
                .isLessThan(Duration.ofSeconds(15));
        assertThat(journal.events(TaskWaiting.class)).filteredOn(w -> w.getTaskId().equals("late-0"))
                .anySatisfy(w -> assertThat(w.getReason()).contains("reserving since"));
        for (int rank = 0; rank < 3; rank++) {
            assertThat(journal.assignments("late-" + rank)).singleElement()
                    .extracting(AttemptAssigned::getAssignedAt).isEqualTo(journal.assignments("late-0").get(0)
                            .getAssignedAt());
            assertThat(journal.awaitFinished("late-" + rank, 1).getState()).isEqualTo(TaskState.SUCCEEDED);
        }
    }

    private static GangSubmitted gang(String id, String pool, int size, GangPlacement layout, String payload) {
        List<TaskSubmitted> members = new ArrayList<>();
        for (int rank = 0; rank < size; rank++) {
            members.add(TaskSubmitted.newBuilder().setTaskId(id + "-" + rank).setPool(pool)
                    .setPayload(ByteBuffer.wrap(payload.getBytes(StandardCharsets.UTF_8)))
                    .setSubmittedAt(Instant.now()).build());
        }
        return new GangSubmitted(id, pool, layout, null, members, "tests", Instant.now());
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
