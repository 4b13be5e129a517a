package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.InputRejected;
import io.cronoq.events.JournalEntry;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerAccepted;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker agent process paused (SIGSTOP) mid-task for longer than the heartbeat timeout, as a network partition or
 * a long stall would leave it, is evicted: its attempt is LOST and runs again on another worker. Resumed (SIGCONT),
 * it holds a stale claim; it must learn it was fenced and abort its copy, and nothing it sends under its old
 * generation counts: the task succeeded once, with the other worker's attempt.
 */
@Tag("integration")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class WorkerPauseTest {

    private static final Logger log = LoggerFactory.getLogger(WorkerPauseTest.class);
    private static final Duration PROGRESS = Duration.ofSeconds(60);
    private static final Map<String, String> LABELS = Map.of("zone", "eu");
    private static final int HEARTBEAT_TIMEOUT_MS = 5000;

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void aPausedWorkerIsEvictedAndWhenResumedIsFencedAndAbortsItsStaleCopy() throws Exception {
        String run = broker.uniqueName("pause");
        String pool = run + "-pool";
        String taskId = run + "-t1";
        String workerA = run + "-a";
        String workerB = run + "-b";
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.workerFaultConfig(bootstrap, run, dir.resolve("state"), HEARTBEAT_TIMEOUT_MS);
        Path logFile = ChaosRun.logs().resolve(workerA + ".log");

        Process processA = null;
        CronoqWorker b = null;
        try (SchedulerApp scheduler = SchedulerApp.start(config)) {
            ChaosRun.awaitRunning(scheduler, PROGRESS);
            Topics topics = scheduler.topics();
            long generationA;
            try (JournalTail journal = JournalTail.start(bootstrap, topics)) {
                // Given worker A, an agent process alone in its group, running the task.
                Files.deleteIfExists(logFile);
                processA = AgentProcesses.start(bootstrap, run + ".", workerA, pool, LABELS, logFile);
                AttemptAssigned first = AgentProcesses.submitLongTaskTo(workerA, journal, bootstrap, topics, pool, taskId,
                        LABELS, PROGRESS);
                assertThat(first.getWorkerId()).isEqualTo(workerA);
                generationA = first.getGeneration();
                AgentProcesses.awaitStarted(journal, taskId, workerA, PROGRESS);
                b = AgentProcesses.inProcessWorker(bootstrap, run + ".", workerB, pool, LABELS);

                // When A is paused beyond the heartbeat timeout.
                signal("STOP", processA.pid());
                long pausedAt = System.nanoTime();
                log.info("Paused worker A ({}, pid {}) with attempt 1 of {} running", workerA, processA.pid(), taskId);

                // Then it is evicted, its attempt lost, and B runs attempt 2 to success.
                WorkerRemoved evicted = await("A is evicted").atMost(PROGRESS).pollInterval(Duration.ofMillis(50))
                        .until(() -> journal.find(WorkerRemoved.class, r -> r.getWorkerId().equals(workerA)),
                                Optional::isPresent).get();
                double evictedAfter = seconds(pausedAt);
                assertThat(evicted.getState()).isEqualTo(WorkerState.EVICTED);
                assertThat(journal.find(WorkerFenced.class, f -> f.getWorkerId().equals(workerA)
                        && f.getTaskId() == null && f.getStaleGeneration() == generationA))
                        .as("A's generation is fenced at its eviction").isPresent();
                await("attempt 2 is assigned to B").atMost(PROGRESS).pollInterval(Duration.ofMillis(50))
                        .until(() -> journal.find(AttemptAssigned.class, a -> a.getTaskId().equals(taskId)
                                && a.getAttempt() == 2 && a.getWorkerId().equals(workerB)).isPresent());
                double reassignedAfter = seconds(pausedAt);
                TaskFinished success = await("the task succeeds").atMost(PROGRESS).until(() -> journal.find(
                        TaskFinished.class, f -> f.getTaskId().equals(taskId) && f.getState() == TaskState.SUCCEEDED),
                        Optional::isPresent).get();
                assertThat(success.getWorkerId()).isEqualTo(workerB);

                // When A resumes, still holding attempt 1 under its old generation.
                signal("CONT", processA.pid());
                long resumedAt = System.nanoTime();
                log.info("Resumed worker A after {} s paused", String.format("%.1f", seconds(pausedAt)));

                // Then it learns it was fenced, aborts its stale copy, and comes back under a new generation.
                await("A's log says it aborted its stale copy").atMost(PROGRESS).pollInterval(Duration.ofMillis(50))
                        .until(() -> Files.readString(logFile).contains("aborting the local copy"));
                double abortedAfter = seconds(resumedAt);
                String agentLog = Files.readString(logFile);
                assertThat(agentLog).as("A's log (" + logFile + ")").contains("was fenced")
                        .contains("Attempt 1 of task " + taskId);
                WorkerAccepted again = await("A registers again under a new generation").atMost(PROGRESS)
                        .until(() -> journal.find(WorkerAccepted.class, w -> w.getWorkerId().equals(workerA)
                                && w.getGeneration() > generationA), Optional::isPresent).get();
                double backAfter = seconds(resumedAt);
                // Whatever A's old generation sent once it resumed (a heartbeat, a report) is refused.
                List<InputRejected> refused = journal.all(InputRejected.class, r -> workerA.equals(r.getWorkerId()));
                List<WorkerFenced> fences = journal.all(WorkerFenced.class, f -> f.getWorkerId().equals(workerA));
                log.info("Worker pause verdict: A evicted {} s after the pause (heartbeat timeout {} s), attempt 2 "
                                + "assigned to B {} s after it; resumed A aborted its stale copy {} s after SIGCONT and "
                                + "was accepted again as generation {} (was {}) {} s after it; {} input(s) of A refused "
                                + "({}), {} fence(s) of A journaled",
                        fmt(evictedAfter), HEARTBEAT_TIMEOUT_MS / 1000, fmt(reassignedAfter), fmt(abortedAfter),
                        again.getGeneration(), generationA, fmt(backAfter), refused.size(),
                        refused.stream().map(r -> r.getInputType() + " " + r.getCode()).toList(), fences.size());
                long staleFences = fences.stream().filter(f -> f.getStaleGeneration() == generationA).count();
                log.info("Fences of A's generation {}: {} (its eviction, and one per input it sent under it)",
                        generationA, staleFences);
                assertThat(staleFences).as("a resumed agent sends one stale heartbeat, not one per interval it missed")
                        .isLessThanOrEqualTo(5);
                assertThat(evictedAfter).as("eviction after the pause, s").isBetween(HEARTBEAT_TIMEOUT_MS / 1000.0 - 1, 45.0);
                // Give a stale report of A's, if it sent one, the time to be read and refused before the verdict.
                Thread.sleep(3000);
            }
            verify(bootstrap, topics, pool, taskId, workerA, generationA, workerB);
        } finally {
            if (b != null) {
                b.close();
            }
            if (processA != null) {
                signal("CONT", processA.pid());
                processA.destroyForcibly();
            }
        }
    }

    /** The committed journal from the start: one success (attempt 2 on B), nothing assigned twice, nothing stuck. */
    private static void verify(String bootstrap, Topics topics, String pool, String taskId, String workerA,
                               long generationA, String workerB) {
        ChaosRun.Committed committed = ChaosRun.Committed.read(bootstrap, topics);
        List<ConsumerRecord<String, JournalEntry>> ours = committed.journal().stream()
                .filter(r -> r.value().getPool().equals(pool)).toList();
        JournalVerdict verdict = JournalVerdict.of(ours, committed.assignments().stream()
                .filter(r -> r.value().getEvent() instanceof AttemptAssigned a && a.getPool().equals(pool)).toList());
        JournalFold fold = committed.fold();
        JournalFold.Task task = fold.task(pool, taskId);
        long stuck = fold.groups().stream().filter(g -> g.busy() > 0).count()
                + (task.state() == TaskState.SUCCEEDED ? 0 : 1);
        int lostTasks = verdict.succeededPerTask().containsKey(taskId) ? 0 : 1;
        long duplicated = ChaosRun.duplicated(verdict);
        log.info("Worker pause counts: lost {}, duplicated {}, stuck {}; attempts {}", lostTasks, duplicated, stuck,
                task.attempts().stream().map(a -> a.attempt() + " " + a.workerId() + " " + a.outcome()).toList());
        assertThat(lostTasks).as("lost tasks").isZero();
        assertThat(duplicated).as("duplicated successes or assignments: " + verdict).isZero();
        assertThat(stuck).as("stuck tasks or busy slots").isZero();
        assertThat(verdict.succeededPerTask()).containsExactly(Map.entry(taskId, 1));
        assertThat(task.state()).isEqualTo(TaskState.SUCCEEDED);
        assertThat(task.attempts()).extracting(a -> a.attempt() + " " + a.workerId() + "@" + a.generation() + " "
                        + a.outcome())
                .containsExactly("1 " + workerA + "@" + generationA + " " + AttemptOutcome.LOST,
                        "2 " + workerB + "@" + task.attempts().get(1).generation() + " " + AttemptOutcome.SUCCEEDED);
        assertThat(verdict.lost()).extracting(f -> f.getWorkerId() + " " + f.getAttempt())
                .containsExactly(workerA + " 1");
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid)).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            log.warn("kill -{} {} did not succeed", name, pid);
        }
    }

    private static double seconds(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9;
    }

    private static String fmt(double seconds) {
        return String.format("%.1f", seconds);
    }
}
