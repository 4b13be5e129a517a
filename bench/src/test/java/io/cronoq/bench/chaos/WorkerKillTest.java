package io.cronoq.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.cronoq.agent.CronoqWorker;
import io.cronoq.events.AssignmentEvent;
import io.cronoq.events.AttemptAssigned;
import io.cronoq.events.AttemptOutcome;
import io.cronoq.events.AttemptSucceeded;
import io.cronoq.events.CompletionEvent;
import io.cronoq.events.InputRejected;
import io.cronoq.events.RejectionCode;
import io.cronoq.events.TaskFinished;
import io.cronoq.events.TaskState;
import io.cronoq.events.WorkerFenced;
import io.cronoq.events.WorkerRemoved;
import io.cronoq.events.WorkerState;
import io.cronoq.scheduler.app.SchedulerApp;
import io.cronoq.scheduler.config.SchedulerConfig;
import io.cronoq.scheduler.replay.JournalFold;
import io.cronoq.schemas.Topics;
import io.cronoq.testkit.KafkaBroker;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker process killed mid-task (SIGKILL: no failure report, no leave) is evicted once its heartbeats stop: the
 * scheduler journals {@code WorkerRemoved} EVICTED, re-queues the attempt it held as LOST, and another worker of the
 * same group runs it to success. A completion the killed worker's generation sends afterwards is rejected and fenced,
 * and changes nothing: the task succeeded once, with the second attempt.
 */
@Tag("integration")
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class WorkerKillTest {

    private static final Logger log = LoggerFactory.getLogger(WorkerKillTest.class);
    private static final Duration PROGRESS = Duration.ofSeconds(90);
    private static final Map<String, String> LABELS = Map.of("zone", "eu");

    @RegisterExtension
    static final KafkaBroker broker = KafkaBroker.create();

    @TempDir
    Path dir;

    @Test
    void aKilledWorkersTaskCompletesOnAnotherWorkerAndItsLateCompletionIsRejected() throws Exception {
        String run = broker.uniqueName("kill");
        String pool = run + "-pool";
        String taskId = run + "-t1";
        String workerA = run + "-a";
        String workerB = run + "-b";
        String bootstrap = broker.bootstrapServers();
        SchedulerConfig config = ChaosRun.workerFaultConfig(bootstrap, run, dir.resolve("state"), 3000);

        Process processA = null;
        CronoqWorker b = null;
        try (SchedulerApp scheduler = SchedulerApp.start(config)) {
            ChaosRun.awaitRunning(scheduler, PROGRESS);
            Topics topics = scheduler.topics();
            long generationA;
            try (JournalTail journal = JournalTail.start(bootstrap, topics)) {
                // Given worker A, a process of its own, alone in the group: it takes the task and runs it.
                processA = AgentProcesses.start(bootstrap, run + ".", workerA, pool, LABELS,
                        ChaosRun.logs().resolve(workerA + ".log"));
                AttemptAssigned first = AgentProcesses.submitLongTaskTo(workerA, journal, bootstrap, topics, pool, taskId,
                        LABELS, PROGRESS);
                assertThat(first.getWorkerId()).isEqualTo(workerA);
                assertThat(first.getAttempt()).isEqualTo(1);
                generationA = first.getGeneration();
                AgentProcesses.awaitStarted(journal, taskId, workerA, PROGRESS);

                // Worker B joins the same group only now, so it can have nothing but attempt 2.
                b = AgentProcesses.inProcessWorker(bootstrap, run + ".", workerB, pool, LABELS);
                assertThat(b.state()).isEqualTo(CronoqWorker.State.ACTIVE);

                // When A is killed mid-task.
                processA.destroyForcibly();
                assertThat(processA.waitFor(30, TimeUnit.SECONDS)).as("worker A is dead").isTrue();
                log.info("Killed worker A ({}) with attempt 1 of {} running", workerA, taskId);

                // Then it is evicted, its attempt is lost and re-queued, and B runs attempt 2 to success.
                WorkerRemoved evicted = await("A is evicted").atMost(PROGRESS).until(() -> journal.find(
                        WorkerRemoved.class, r -> r.getWorkerId().equals(workerA)), Optional::isPresent).get();
                assertThat(evicted.getState()).isEqualTo(WorkerState.EVICTED);
                assertThat(evicted.getReason()).startsWith("evicted: no heartbeat for");
                WorkerFenced evictionFence = journal.find(WorkerFenced.class, f -> f.getWorkerId().equals(workerA)
                        && f.getTaskId() == null).orElseThrow();
                assertThat(evictionFence.getStaleGeneration()).as("A's generation is fenced").isEqualTo(generationA);
                assertThat(evictionFence.getReason()).startsWith("evicted: no heartbeat for");
                TaskFinished success = await("the task succeeds").atMost(PROGRESS).until(() -> journal.find(
                        TaskFinished.class, f -> f.getTaskId().equals(taskId) && f.getState() == TaskState.SUCCEEDED),
                        Optional::isPresent).get();
                assertThat(success.getAttempt()).isEqualTo(2);
                assertThat(success.getWorkerId()).isEqualTo(workerB);

                // When A's generation reports attempt 1 done after all.
                lateSuccess(bootstrap, topics, new AttemptSucceeded(taskId, pool, 1, workerA, generationA,
                        Instant.now(), ByteBuffer.wrap("late".getBytes(StandardCharsets.UTF_8))));

                // Then it is rejected and A is fenced for it.
                InputRejected rejected = await("the late completion is rejected").atMost(PROGRESS).until(() ->
                        journal.find(InputRejected.class, r -> taskId.equals(r.getTaskId())
                                && workerA.equals(r.getWorkerId())), Optional::isPresent).get();
                assertThat(rejected.getInputType()).isEqualTo("AttemptSucceeded");
                assertThat(rejected.getCode()).isEqualTo(RejectionCode.FAILED_PRECONDITION);
                await("A is fenced for attempt 1").atMost(PROGRESS).until(() -> journal.find(WorkerFenced.class,
                        f -> f.getWorkerId().equals(workerA) && taskId.equals(f.getTaskId())
                                && Integer.valueOf(1).equals(f.getAttempt())).isPresent());
            }

            verify(bootstrap, topics, pool, taskId, workerA, generationA, workerB);
        } finally {
            if (b != null) {
                b.close();
            }
            if (processA != null) {
                processA.destroyForcibly();
            }
        }
    }

    /** The committed journal, read from the start, says it all once more: one success, attempt 2 on B. */
    private static void verify(String bootstrap, Topics topics, String pool, String taskId, String workerA,
                               long generationA, String workerB) {
        ChaosRun.Committed committed = ChaosRun.Committed.read(bootstrap, topics);
        List<Object> events = committed.journal().stream().filter(r -> r.value().getPool().equals(pool))
                .map(r -> r.value().getEvent()).toList();

        List<TaskFinished> finishes = events.stream().filter(TaskFinished.class::isInstance).map(TaskFinished.class::cast)
                .filter(f -> f.getTaskId().equals(taskId)).toList();
        assertThat(finishes).as("attempt 1 lost on A and re-queued, attempt 2 succeeded on B, nothing else")
                .extracting(f -> f.getAttempt() + " " + f.getWorkerId() + " " + f.getOutcome() + " " + f.getState())
                .containsExactly("1 " + workerA + " " + AttemptOutcome.LOST + " " + TaskState.WAITING,
                        "2 " + workerB + " " + AttemptOutcome.SUCCEEDED + " " + TaskState.SUCCEEDED);
        assertThat(events.stream().filter(AttemptAssigned.class::isInstance).map(AttemptAssigned.class::cast)
                .filter(a -> a.getTaskId().equals(taskId)))
                .extracting(a -> a.getAttempt() + " " + a.getWorkerId())
                .containsExactly("1 " + workerA, "2 " + workerB);
        assertThat(events).as("the late completion was rejected, and A fenced for it")
                .anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(InputRejected.class, r -> {
                    assertThat(r.getTaskId()).isEqualTo(taskId);
                    assertThat(r.getWorkerId()).isEqualTo(workerA);
                }))
                .anySatisfy(e -> assertThat(e).isInstanceOfSatisfying(WorkerFenced.class, f -> {
                    assertThat(f.getWorkerId()).isEqualTo(workerA);
                    assertThat(f.getTaskId()).isEqualTo(taskId);
                }));

        List<ConsumerRecord<String, AssignmentEvent>> toA = committed.assignments().stream()
                .filter(r -> r.key().equals(workerA)).toList();
        assertThat(toA).as("what A's key was sent: its attempt, then the fences of its eviction and of its late "
                        + "completion")
                .extracting(r -> r.value().getEvent())
                .filteredOn(e -> e instanceof AttemptAssigned || e instanceof WorkerFenced)
                .extracting(e -> e instanceof WorkerFenced f
                        ? "fenced " + f.getStaleGeneration() + " " + f.getTaskId() + " " + f.getAttempt()
                        : "assigned " + ((AttemptAssigned) e).getTaskId() + " " + ((AttemptAssigned) e).getAttempt())
                .containsExactly("assigned " + taskId + " 1", "fenced " + generationA + " null null",
                        "fenced " + generationA + " " + taskId + " 1");

        JournalFold.Task task = committed.fold().task(pool, taskId);
        assertThat(task.state()).as("still SUCCEEDED after the late completion").isEqualTo(TaskState.SUCCEEDED);
        assertThat(task.attempts()).extracting(a -> a.attempt() + " " + a.workerId() + " " + a.outcome())
                .containsExactly("1 " + workerA + " " + AttemptOutcome.LOST,
                        "2 " + workerB + " " + AttemptOutcome.SUCCEEDED);
    }

    /** A completion written as a worker would, by a plain producer: keyed by pool on the completions topic. */
    private static void lateSuccess(String bootstrap, Topics topics, AttemptSucceeded late) throws Exception {
        try (KafkaProducer<String, CompletionEvent> producer = producer(bootstrap, topics.completions().valueSerde()
                .serializer())) {
            producer.send(new ProducerRecord<>(topics.completions().name(), late.getPool(), new CompletionEvent(late)))
                    .get();
        }
    }

    private static <V> KafkaProducer<String, V> producer(String bootstrap,
                                                         org.apache.kafka.common.serialization.Serializer<V> values) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new org.apache.kafka.common.serialization.StringSerializer(), values);
    }
}
